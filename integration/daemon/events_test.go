package daemon

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// nextEvent reads events until one satisfies match.
func nextEvent(t *testing.T, es *client.EventStream, what string, match func(api.Event) bool) api.Event {
	t.Helper()
	for {
		ev, err := es.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if match(ev) {
			return ev
		}
	}
}

func TestEventsStream(t *testing.T) {
	ts, root := serveOne(t, testTree{"a": "a"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	es, err := ts.client.Events(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	w := ts.client.Workspace(root)
	log, err := w.Log(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	initial := log.Checkpoints[0].CheckpointID

	testTree{"new.txt": "new"}.write(t, root)
	if _, err := w.Status(ctx); err != nil { // the scan captures new.txt
		t.Fatal(err)
	}
	ev := nextEvent(t, es, "the change", func(ev api.Event) bool { return ev.Type == api.EventChange })
	if c := ev.Change; c == nil || c.Path != "new.txt" || c.Kind != "added" || c.By != "person" || ev.Workspace != root {
		t.Fatalf("change event %+v (%+v)", ev, ev.Change)
	}
	cp, err := w.Checkpoint(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	ev = nextEvent(t, es, "the checkpoint", func(ev api.Event) bool { return ev.Type == api.EventCheckpoint })
	if ev.Checkpoint == nil || ev.Checkpoint.CheckpointID != cp.CheckpointID || ev.Checkpoint.Message != "m" {
		t.Fatalf("checkpoint event %+v", ev.Checkpoint)
	}

	if _, err := w.Restore(ctx, api.RestoreRequest{ID: initial, Exact: true}); err != nil {
		t.Fatal(err)
	}
	ev = nextEvent(t, es, "the restore's change", func(ev api.Event) bool { return ev.Type == api.EventChange })
	if c := ev.Change; c.Path != "new.txt" || c.Kind != "deleted" || c.By != "restore" {
		t.Fatalf("restore's change event %+v", c)
	}
	ev = nextEvent(t, es, "the restore", func(ev api.Event) bool { return ev.Type == api.EventRestore })
	if r := ev.Restore; r == nil || r.CheckpointID != initial || len(r.Restored) != 1 || r.Restored[0].Path != "new.txt" {
		t.Fatalf("restore event %+v", ev.Restore)
	}

	h, err := ts.client.Health(ctx)
	if err != nil || len(h.Workspaces) != 1 || h.Workspaces[0].Subscribers != 1 {
		t.Fatalf("health with one subscriber: %+v, %v", h, err)
	}
}

func TestEventsEndAtShutdown(t *testing.T) {
	ts, root := serveOne(t, nil)
	es, err := ts.client.Events(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	done := make(chan error, 1)
	go func() {
		_, err := es.Next()
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a subscriber: %v", err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an event after shutdown")
		}
	case <-ctx.Done():
		t.Fatal("the stream did not end at shutdown")
	}
}

func TestEventsUnknownWorkspace(t *testing.T) {
	ts := startServer(t, ServerOptions{})
	if _, err := ts.client.Events(context.Background(), "/no/such"); err == nil || !strings.Contains(err.Error(), "does not serve") {
		t.Fatalf("events of an unknown workspace: %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestEventsLostForSlowSubscriber publishes more than a subscriber can
// hold: publishing never blocks, the overflow is counted, and the stream
// reports it after the events it kept.
func TestEventsLostForSlowSubscriber(t *testing.T) {
	h := newHub()
	sub := h.subscribe()
	n := subscriberBuffer + 10
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := range n {
			h.publish(api.Event{Type: api.EventChange, Change: &api.ChangeEvent{Seq: uint64(i + 1)}})
		}
	}()
	select {
	case <-published:
	case <-time.After(5 * time.Second):
		t.Fatal("publish blocked on a subscriber that does not read")
	}
	if got := sub.lost.Load(); got != 10 {
		t.Fatalf("lost %d, want 10", got)
	}

	var out syncBuffer
	stop := make(chan struct{})
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		streamEvents(&out, func() error { return nil }, "/ws", sub, stop)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "event: lost") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	<-streamed
	text := out.String()
	if got := strings.Count(text, "event: change\n"); got != subscriberBuffer {
		t.Errorf("%d change events streamed, want %d", got, subscriberBuffer)
	}
	lost := strings.Index(text, "event: lost\n")
	if lost < 0 || !strings.Contains(text[lost:], `"lost":10`) {
		t.Fatalf("no lost event with the count 10 in:\n%s", text)
	}
	if strings.LastIndex(text, "event: change\n") > lost {
		t.Error("the lost event came before the events received before the drops")
	}
}
