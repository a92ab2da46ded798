package watcher

import (
	"fmt"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func TestEventQueue(t *testing.T) {
	q := newEventQueue(3)
	for i := range 3 {
		if !q.push(fsnotify.Event{Name: fmt.Sprint(i)}) {
			t.Fatalf("push %d refused below capacity", i)
		}
	}
	if q.push(fsnotify.Event{Name: "overflow"}) {
		t.Fatal("push accepted beyond capacity")
	}
	if ev, _ := q.pop(); ev.Name != "0" {
		t.Fatalf("pop = %q, want FIFO order", ev.Name)
	}
	if !q.push(fsnotify.Event{Name: "3"}) {
		t.Fatal("push refused after a pop")
	}
	for _, want := range []string{"1", "2", "3"} {
		if ev, ok := q.pop(); !ok || ev.Name != want {
			t.Fatalf("pop = %q %v, want %q", ev.Name, ok, want)
		}
	}
	if _, ok := q.pop(); ok || q.len() != 0 {
		t.Fatal("queue not empty")
	}
	// Long-running use reuses the consumed front instead of growing.
	q = newEventQueue(100)
	for i := range 10000 {
		q.push(fsnotify.Event{Name: fmt.Sprint(i)})
		if ev, _ := q.pop(); ev.Name != fmt.Sprint(i) {
			t.Fatalf("pop %d = %q", i, ev.Name)
		}
	}
	if cap(q.items) > 100 {
		t.Errorf("queue grew to %d for one item at a time", cap(q.items))
	}
	q.push(fsnotify.Event{})
	q.clear()
	if q.len() != 0 {
		t.Fatal("clear left items")
	}
}

func TestPendingSet(t *testing.T) {
	t0 := time.Now()
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	s := newPendingSet(10*time.Millisecond, 50*time.Millisecond)
	if _, ok := s.next(); ok {
		t.Fatal("empty set has a deadline")
	}
	s.mark("a", ms(0))
	s.mark("b", ms(5))
	if next, _ := s.next(); !next.Equal(ms(10)) {
		t.Fatalf("next = %v, want +10ms", next.Sub(t0))
	}
	if got := s.due(ms(9)); len(got) != 0 {
		t.Fatalf("due before the settle delay: %q", got)
	}
	if got := s.due(ms(12)); len(got) != 1 || got[0] != "a" {
		t.Fatalf("due at +12ms = %q, want [a]", got)
	}
	// A path that keeps changing is flushed MaxDelay after its first event.
	for i := 6; i <= 60; i += 5 {
		s.mark("b", ms(i))
	}
	if got := s.due(ms(54)); len(got) != 0 {
		t.Fatalf("due at +54ms = %q, want nothing yet", got)
	}
	if next, _ := s.next(); !next.Equal(ms(55)) {
		t.Fatalf("next = %v, want +55ms (the bound)", next.Sub(t0))
	}
	if got := s.due(ms(55)); len(got) != 1 || got[0] != "b" {
		t.Fatalf("due at +55ms = %q, want [b]", got)
	}
	s.mark("c", ms(60))
	s.mark("d", ms(61))
	if got := s.takeAll(); len(got) != 2 || s.len() != 0 {
		t.Fatalf("takeAll = %q, len after %d", got, s.len())
	}
}
