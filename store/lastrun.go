package store

import (
	"errors"
	"sync"
	"sync/atomic"
)

// lastRunCache remembers the most recently started run, as Reader.LastRun
// finds it by reading every run record. Every status asks for it: the scan
// decoded each run's record, drift list and all, on every request, so a
// status cost grew with the runs a workspace ever had. Every run record is
// written through Writer.PutRun, in this process (the store is locked to
// it), so the cache is kept exact at each commit that puts one.
type lastRunCache struct {
	mu    sync.Mutex
	known bool // run and found say what a scan would find now
	found bool
	run   Run
	// gen counts commits that put runs: a scan that saw one begin is not
	// kept, since its snapshot may predate the commit.
	gen   uint64
	scans atomic.Int64 // scans made (for tests)
}

// LastRun is the most recently started run (Reader.LastRun at the newest
// commit), or ErrNotFound. After the first call it reads nothing.
func (s *Store) LastRun() (Run, error) {
	c := &s.lastRun
	c.mu.Lock()
	if c.known {
		rn, found := c.run, c.found
		c.mu.Unlock()
		if !found {
			return Run{}, ErrNotFound
		}
		return rn, nil
	}
	gen := c.gen
	c.mu.Unlock()
	c.scans.Add(1)
	var rn Run
	err := s.View(func(r *Reader) (err error) {
		rn, err = r.LastRun()
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return rn, err
	}
	c.mu.Lock()
	if c.gen == gen {
		c.known, c.found, c.run = true, err == nil, rn
	}
	c.mu.Unlock()
	return rn, err
}

// committed updates the cache with the runs a commit put, in their order.
func (c *lastRunCache) committed(runs []Run) {
	if len(runs) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, r := range runs {
		if !c.known {
			return
		}
		same := r.Session == c.run.Session && r.Run == c.run.Run
		switch {
		case !c.found:
			c.run, c.found = r, true
		case same && r.StartedAt.Before(c.run.StartedAt):
			c.known = false // another run may be the newest now: scan again
		case same, startedAfter(r, c.run):
			c.run = r
		}
	}
}

// startedAfter reports whether a run comes before b as Reader.LastRun
// picks: started later, or at the same time with a smaller key (the scan
// goes in key order and keeps the first of equals).
func startedAfter(a, b Run) bool {
	if !a.StartedAt.Equal(b.StartedAt) {
		return a.StartedAt.After(b.StartedAt)
	}
	return string(runKey(a.Session, a.Run)) < string(runKey(b.Session, b.Run))
}
