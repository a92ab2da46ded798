package snapshot

import (
	"cmp"
	"slices"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// A capture (a watcher batch or a scan) may see several changes at once:
// a scan without a daemon sees everything written since the last command.
// It journals them in the order they were made, as far as it can tell
// (ChangeTime), so that a position in the journal is a moment: what was
// written before it and what after (a run ended as of an earlier moment,
// drift.Engine.RunEndAsOf, reads that split).

// ChangeTime is when a journal entry's change was made, as far as ckpt can
// tell: no later than when it was captured, nor than the ctime of the state
// it recorded (the kernel sets a file's ctime to the current time at every
// write, chmod or rename, and no program can set it back, as it can the
// mtime). A deletion leaves no time on the file: its capture time stands.
// Both are upper bounds, so a change counted as made after a moment may
// have been made before it, to within the file system's clock tick, never
// the other way round.
func ChangeTime(c store.Change) time.Time {
	t := c.Time
	if c.State.Exists() && c.State.Ctime > 0 && c.State.Ctime < t {
		t = c.State.Ctime
	}
	return time.Unix(0, t)
}

// staged is a file whose new state a batch journals.
type staged struct {
	c  candidate
	st store.State
}

func (s staged) at() int64 {
	return ChangeTime(store.Change{Time: s.st.Recorded, State: s.st}).UnixNano()
}

// journalBatch is what one capture journals: files with new content, and
// files that vanished between the walk and their read.
type journalBatch struct {
	written  []staged
	vanished []candidate
}

// record journals the batch in the order its changes were made: the
// written files by ChangeTime, then the deletions (gone, and the vanished
// files), whose time is now.
func (b *journalBatch) record(w *store.Writer, gone map[string]store.State, attr store.Attr) error {
	for _, i := range b.changeOrder() {
		s := b.written[i]
		kind := store.Modified
		if !s.c.hadPrev {
			kind = store.Added
		}
		if _, err := w.Record(store.Change{Path: s.c.path, Kind: kind, State: s.st, Attr: attr, Time: s.st.Recorded},
			roll(w.Fingerprint(), s.c.path, s.c.prev, s.st)); err != nil {
			return err
		}
	}
	now := time.Now().UnixNano()
	for path, st := range gone {
		if _, err := w.Record(store.Change{Path: path, Kind: store.Deleted, Attr: attr, Time: now},
			roll(w.Fingerprint(), path, st, store.State{})); err != nil {
			return err
		}
	}
	for _, c := range b.vanished {
		if _, err := w.Record(store.Change{Path: c.path, Kind: store.Deleted, Attr: attr, Time: now},
			roll(w.Fingerprint(), c.path, c.prev, store.State{})); err != nil {
			return err
		}
	}
	return nil
}

// changeOrder is the indexes of b.written by ChangeTime, ties in the order
// they came: the times are computed once each and the staged files, a few
// hundred bytes apiece, are not moved (sorting them was 2% of a first
// import's CPU).
func (b *journalBatch) changeOrder() []int32 {
	type key struct {
		at int64
		i  int32
	}
	keys := make([]key, len(b.written))
	for i, s := range b.written {
		keys[i] = key{s.at(), int32(i)}
	}
	slices.SortFunc(keys, func(x, y key) int { return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.i, y.i)) })
	order := make([]int32, len(keys))
	for i, k := range keys {
		order[i] = k.i
	}
	return order
}
