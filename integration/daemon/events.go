package daemon

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
)

// subscriberBuffer is how many events a subscriber may fall behind before
// events are dropped for it; a variable so that tests can shrink it.
var subscriberBuffer = 1024

// eventKeepAlive is how often an idle stream carries a comment, so that a
// dead client is noticed.
var eventKeepAlive = 15 * time.Second

// hub fans a workspace's events out to its subscribers without ever
// blocking the publisher.
type hub struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	n      atomic.Int32
	done   chan struct{}
	closed bool
}

// subscriber is one event stream.
type subscriber struct {
	ch   chan api.Event
	lost atomic.Int64  // events dropped since the last "lost" event
	wake chan struct{} // signalled when an event is dropped
}

func newHub() *hub {
	return &hub{subs: make(map[*subscriber]struct{}), done: make(chan struct{})}
}

// active reports whether anyone listens: events are built only then.
func (h *hub) active() bool { return h.n.Load() > 0 }

func (h *hub) count() int { return int(h.n.Load()) }

func (h *hub) subscribe() *subscriber {
	sub := &subscriber{ch: make(chan api.Event, subscriberBuffer), wake: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[sub] = struct{}{}
	h.n.Store(int32(len(h.subs)))
	return sub
}

func (h *hub) unsubscribe(sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, sub)
	h.n.Store(int32(len(h.subs)))
}

// publish hands ev to every subscriber that has room, and counts it as
// lost for the others. It never blocks.
func (h *hub) publish(ev api.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		select {
		case sub.ch <- ev:
		default:
			sub.lost.Add(1)
			select {
			case sub.wake <- struct{}{}:
			default:
			}
		}
	}
}

// close ends every stream of the hub.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// handleEvents is GET /v1/events: a server-sent event stream. The answer's
// header is sent once the subscription is in place, so a client that has
// it sees every event from then on (or a "lost" event).
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	sp, err := s.lookup(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sub := sp.hub.subscribe()
	defer sp.hub.unsubscribe(sub)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, ": ckptd events for %s\n\n", sp.root)
	if rc.Flush() != nil {
		return
	}
	stop := make(chan struct{})
	go func() {
		defer close(stop)
		select {
		case <-r.Context().Done():
		case <-s.closing:
		case <-sp.hub.done:
		}
	}()
	streamEvents(w, rc.Flush, sp.root, sub, stop)
}

// streamEvents writes the subscriber's events until stop is closed or a
// write fails. Drops are reported as a "lost" event once the events
// received before them are written.
func streamEvents(w io.Writer, flush func() error, root string, sub *subscriber, stop <-chan struct{}) {
	keepAlive := time.NewTicker(eventKeepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case ev := <-sub.ch:
			writeEvent(w, ev)
		case <-sub.wake:
		case <-keepAlive.C:
			io.WriteString(w, ": keep-alive\n\n")
		case <-stop:
			return
		}
		if len(sub.ch) == 0 {
			if n := sub.lost.Swap(0); n > 0 {
				writeEvent(w, api.Event{Type: api.EventLost, Workspace: root, Time: time.Now().UTC(), Lost: n})
			}
		}
		if flush() != nil {
			return
		}
	}
}

// writeEvent writes one server-sent event: its type and its JSON.
func writeEvent(w io.Writer, ev api.Event) {
	data, err := json.Marshal(ev)
	if err != nil {
		return
	}
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Type, data)
}

// eventOf turns a workspace's event into the stream's (checkpoints and
// restores shown as drift shows them).
func eventOf(root string, ev snapshot.Event) api.Event {
	out := api.Event{Type: ev.Type, Workspace: root, Time: time.Now().UTC()}
	switch {
	case ev.Change != nil:
		c := ev.Change
		out.Time = time.Unix(0, c.Time).UTC()
		ce := &api.ChangeEvent{
			Seq: c.Seq, Path: api.QuotePath(c.Path), Kind: c.Kind.String(), By: "person",
			SessionID: c.Attr.Session, RunID: c.Attr.Run, ToolCallID: c.Attr.Call,
			SharedWith: drift.SharedWith(c.Attr),
		}
		switch {
		case c.Attr.Restore:
			ce.By = "restore"
		case c.Attr.InRun():
			ce.By = "run"
		}
		out.Change = ce
	case ev.Checkpoint != nil:
		cp := ev.Checkpoint
		out.Checkpoint = &api.Checkpoint{
			CheckpointID: cp.ID, Reason: cp.Reason, CreatedAt: cp.CreatedAt,
			SessionID: cp.Session, RunID: cp.Run, ToolCallID: cp.Call, Message: cp.Message,
			Fingerprint: snapshot.FormatFingerprint(cp.Fingerprint, cp.Files), Files: cp.Files,
		}
		out.Time = cp.CreatedAt
	case ev.Restore != nil:
		out.Restore = restoreOf(*ev.Restore)
	case ev.Review != nil:
		rv := ev.Review
		out.Review = &api.ReviewEvent{SessionID: rv.Session, RunID: rv.Run, Path: api.QuotePath(rv.Path), Mark: rv.Mark, At: rv.At}
		out.Time = rv.At
	}
	return out
}

// restoreOf is a restore as the API shows it (as drift does).
func restoreOf(r snapshot.RestoreResult) *api.RestoreResult {
	out := drift.RestoreResultOf(r)
	return &out
}
