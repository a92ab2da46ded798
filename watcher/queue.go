package watcher

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// DefaultQueueSize is the capacity of the in-process event queue when
// Options.QueueSize is 0 (config queue_size has the same default). The
// kernel queue holds 16,384 events (fs.inotify.max_queued_events); this one
// is larger so that a burst (a git checkout, an npm install) is absorbed in
// memory rather than overflowing. The queue grows on demand, so a large
// bound costs nothing while the workspace is quiet.
var DefaultQueueSize = 65536

// eventQueue is the bounded FIFO between the goroutine that drains fsnotify
// and the goroutine that processes events. push never blocks: a full queue
// reports false and the caller treats it as an overflow (a full re-walk),
// exactly like a kernel IN_Q_OVERFLOW.
type eventQueue struct {
	mu     sync.Mutex
	items  []fsnotify.Event
	head   int           // index of the oldest item in items
	max    int           // capacity bound
	signal chan struct{} // receives a token when items were pushed
}

func newEventQueue(max int) *eventQueue {
	if max <= 0 {
		max = DefaultQueueSize
	}
	return &eventQueue{max: max, signal: make(chan struct{}, 1)}
}

// push appends ev; it returns false, dropping ev, when the queue is full.
func (q *eventQueue) push(ev fsnotify.Event) bool {
	q.mu.Lock()
	if len(q.items)-q.head >= q.max {
		q.mu.Unlock()
		return false
	}
	if q.head > 0 && q.head >= len(q.items)/2 && len(q.items) == cap(q.items) {
		// Reuse the consumed front half instead of growing.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	q.items = append(q.items, ev)
	q.mu.Unlock()
	q.notify()
	return true
}

// notify wakes the consumer without blocking.
func (q *eventQueue) notify() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// pop removes and returns the oldest event.
func (q *eventQueue) pop() (fsnotify.Event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.items) {
		return fsnotify.Event{}, false
	}
	ev := q.items[q.head]
	q.items[q.head] = fsnotify.Event{}
	q.head++
	if q.head == len(q.items) {
		q.items = q.items[:0]
		q.head = 0
	}
	return ev, true
}

// clear drops every queued event (a re-walk is about to make them moot)
// and releases the memory a burst grew.
func (q *eventQueue) clear() {
	q.mu.Lock()
	q.items = nil
	q.head = 0
	q.mu.Unlock()
}

// len is the number of queued events.
func (q *eventQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}

// drain moves fsnotify's events and errors into the in-process queue as
// fast as they come, so that the kernel queue never fills because the
// processor is busy. A full queue or any watcher error asks for a re-walk.
func (w *Watcher) drain(fsw *fsnotify.Watcher, drained chan<- struct{}) {
	defer close(drained)
	events, errs := fsw.Events, fsw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.events.Add(1)
			if !w.q.push(ev) {
				w.requestOverflow("in-process event queue full")
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			switch {
			case errors.Is(err, fsnotify.ErrEventOverflow):
				w.requestOverflow("kernel event queue overflow")
			case errors.Is(err, syscall.EINVAL):
				// fsnotify handles a directory's IN_MOVE_SELF by removing
				// its watch; when the directory was deleted too, the kernel
				// already had (IN_IGNORED is queued behind), and
				// inotify_rm_watch says EINVAL. The Rename event is still
				// delivered: nothing was lost, and a re-walk for every
				// "mv dir x && rm -rf x" would cost a full scan.
			default:
				w.fail(fmt.Errorf("fsnotify: %w", err))
				w.requestOverflow("watcher error: " + err.Error())
			}
		}
	}
}

// requestOverflow flags that events were lost; the processor re-walks.
func (w *Watcher) requestOverflow(why string) {
	if w.overflow.Swap(true) {
		return // already pending: one re-walk covers both
	}
	w.overflows.Add(1)
	w.overflowMu.Lock()
	w.overflowWhy = why
	w.overflowMu.Unlock()
	w.q.notify()
}

// takeOverflow consumes a pending overflow and says why it happened.
func (w *Watcher) takeOverflow() (string, bool) {
	if !w.overflow.Swap(false) {
		return "", false
	}
	w.overflowMu.Lock()
	defer w.overflowMu.Unlock()
	return w.overflowWhy, true
}
