package store

import (
	"context"
	"errors"
	"time"
)

// A daemon's store holds, until something rewrites it, what its captures
// wrote: contents at zstd's fastest level, each alone (Repack writes the
// final encoding), and the value-log space of what was overwritten or
// deleted (Reclaim gives it back). ckpt gc does both; an idle daemon does
// them itself (Maintain), so that the store it keeps open is the size of a
// gc'd one. A Repack's own commits are background writes: they leave the
// store idle and count as nothing to reclaim, so the work ends.

// errReclaimStopped: a reclaim's stop func said to stop.
var errReclaimStopped = errors.New("store: reclaim stopped")

// ErrMaintainStopped is what Maintain returns when work arrived (or its
// stop func said so) before it was done; what it did is kept, and the
// rest is still due.
var ErrMaintainStopped = errors.New("store: maintenance stopped: work arrived")

// Idle is when the store's last commit was, not counting background
// rewrites, and how many bytes were committed since the last Reclaim
// began: what a Maintain would have to repack and give back.
func (s *Store) Idle() (last time.Time, written int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastCommit, s.sinceReclaim
}

// MaintainStats says what a Maintain did.
type MaintainStats struct {
	Repacked RecompressStats
	Reclaim  ReclaimStats
}

// Maintain rewrites the contents not in the final encoding yet (Repack,
// pause called between its steps) and then gives the space of what was
// replaced, overwritten or deleted back (Reclaim). It stops, with
// ErrMaintainStopped, at the first step after a commit that is not its
// own, or once stop reports true; ctx's end stops it too (with ctx's
// error). A stopped Maintain leaves the store consistent: every rewritten
// chunk is complete, and what it did not reclaim is reclaimed next time.
func (s *Store) Maintain(ctx context.Context, pause func(), stop func() bool) (MaintainStats, error) {
	var ms MaintainStats
	start := time.Now()
	halt := func() bool {
		last, _ := s.Idle()
		return last.After(start) || stop != nil && stop()
	}
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	step := func() {
		if pause != nil {
			pause()
		}
		if halt() {
			cancel()
		}
	}
	var err error
	ms.Repacked, err = s.Repack(mctx, step)
	switch {
	case ctx.Err() != nil:
		return ms, ctx.Err()
	case errors.Is(err, context.Canceled):
		return ms, ErrMaintainStopped
	case err != nil:
		return ms, err
	}
	if halt() {
		return ms, ErrMaintainStopped
	}
	ms.Reclaim, err = s.reclaim(func() bool { return ctx.Err() != nil || halt() })
	if errors.Is(err, errReclaimStopped) {
		if ctx.Err() != nil {
			return ms, ctx.Err()
		}
		return ms, ErrMaintainStopped
	}
	if err == nil && ms.Reclaim.ValueLogFiles > 0 {
		// The value-log GC moved what it kept, and wrote the moved
		// records' new pointers to the memtable: flushed, they go from
		// its log (uncompressed, 180 KB after terraform's checkouts) to
		// a level-0 table.
		err = s.flushAfterReclaim()
	}
	if err == nil {
		s.releaseLogPages()
	}
	return ms, err
}

// flushAfterReclaim flushes the memtables, as FlushIdle does, whatever
// was committed.
func (s *Store) flushAfterReclaim() error {
	s.reclaiming.Lock()
	defer s.reclaiming.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}
