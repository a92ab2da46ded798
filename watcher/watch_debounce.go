package watcher

import (
	"container/list"
	"strings"
	"time"
)

// pendingSet coalesces events per path. A path is due Debounce after its
// last event (it has settled) or MaxDelay after its first pending event (it
// keeps changing, flush it anyway), whichever comes first.
//
// Two lists keep both deadlines O(1): byLast is ordered by the last event
// (a path moves to the back on every event), byFirst by the first event
// (a path never moves until it is flushed). The earliest deadline is
// therefore at the front of one of them.
type pendingSet struct {
	debounce, maxDelay time.Duration

	paths   map[string]*pendingPath
	byLast  list.List // of *pendingPath, oldest last event first
	byFirst list.List // of *pendingPath, oldest first event first
}

type pendingPath struct {
	rel           string
	first, last   time.Time
	inLast, inFst *list.Element
}

func newPendingSet(debounce, maxDelay time.Duration) *pendingSet {
	return &pendingSet{debounce: debounce, maxDelay: maxDelay, paths: make(map[string]*pendingPath)}
}

// mark records an event on rel at now.
func (s *pendingSet) mark(rel string, now time.Time) {
	if p, ok := s.paths[rel]; ok {
		p.last = now
		s.byLast.MoveToBack(p.inLast)
		return
	}
	p := &pendingPath{rel: rel, first: now, last: now}
	p.inLast = s.byLast.PushBack(p)
	p.inFst = s.byFirst.PushBack(p)
	s.paths[rel] = p
}

// len is the number of pending paths.
func (s *pendingSet) len() int { return len(s.paths) }

// next returns the earliest moment a path becomes due; ok is false when
// nothing is pending.
func (s *pendingSet) next() (t time.Time, ok bool) {
	if len(s.paths) == 0 {
		return time.Time{}, false
	}
	t = s.byLast.Front().Value.(*pendingPath).last.Add(s.debounce)
	if m := s.byFirst.Front().Value.(*pendingPath).first.Add(s.maxDelay); m.Before(t) {
		t = m
	}
	return t, true
}

// due removes and returns the paths that are due at now.
func (s *pendingSet) due(now time.Time) []string {
	var out []string
	for e := s.byLast.Front(); e != nil; e = s.byLast.Front() {
		p := e.Value.(*pendingPath)
		if p.last.Add(s.debounce).After(now) {
			break
		}
		out = append(out, s.remove(p))
	}
	for e := s.byFirst.Front(); e != nil; e = s.byFirst.Front() {
		p := e.Value.(*pendingPath)
		if p.first.Add(s.maxDelay).After(now) {
			break
		}
		out = append(out, s.remove(p))
	}
	return out
}

// takeAll removes and returns every pending path (a cookie barrier or
// shutdown flushes without waiting for the settle delay).
func (s *pendingSet) takeAll() []string {
	out := make([]string, 0, len(s.paths))
	for e := s.byFirst.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*pendingPath).rel)
	}
	s.reset()
	return out
}

// reset forgets every pending path (a re-walk covers them).
func (s *pendingSet) reset() {
	s.paths = make(map[string]*pendingPath)
	s.byLast.Init()
	s.byFirst.Init()
}

func (s *pendingSet) remove(p *pendingPath) string {
	s.byLast.Remove(p.inLast)
	s.byFirst.Remove(p.inFst)
	delete(s.paths, p.rel)
	return p.rel
}

// dropUnder forgets the pending paths at or under dir (a re-walk of dir
// covers them).
func (s *pendingSet) dropUnder(dir string) {
	for rel, p := range s.paths {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			s.remove(p)
		}
	}
}
