package snapshot

import (
	"github.com/ckptdev/ckpt/store"
)

// maxUnsettled bounds the paths a restore may leave differing from its
// target and still record them; past it, drift is read from the target's
// own seq (slower, same answer).
const maxUnsettled = 4096

// Drift lists how the workspace differs now (at Head) from checkpoint cp,
// as Diff(cp.Seq, Head()) does. When cp is the current checkpoint and a
// restore recorded where the workspace last equalled it, only the journal
// after that point (and the paths the restore left as they were) is read:
// status after restoring an old checkpoint costs the changes since the
// restore, not the history between the checkpoint and now.
// keep, if set, decides which journal entries count, as for Diff; it is
// also told of an entry standing in for each path the restore left
// differing (the last to change its content before the restore settled,
// or one with no attribution at the settled seq when there is none).
func (ws *Workspace) Drift(cp store.Checkpoint, f Filter, keep func(store.Change) bool) ([]FileChange, error) {
	return ws.driftAt(ws.st.Head(), cp, f, keep)
}

// driftAt is Drift at journal seq head.
func (ws *Workspace) driftAt(head uint64, cp store.Checkpoint, f Filter, keep func(store.Change) bool) ([]FileChange, error) {
	var out []FileChange
	err := ws.st.View(func(r *store.Reader) error {
		s, err := r.Workspace()
		if err != nil {
			return err
		}
		from := cp.Seq
		settled := s.CurrentCheckpointID == cp.ID && s.SettledSeq > cp.Seq && s.SettledSeq <= head
		if settled {
			from = s.SettledSeq
		}
		t := newTouched(head - min(from, head) + uint64(len(s.Unsettled)))
		if settled {
			if err := t.unsettled(r, s.Unsettled, from, f, keep); err != nil {
				return err
			}
		}
		if err := t.collect(r, from, head, f, keep); err != nil {
			return err
		}
		out, err = t.resolve(r, cp.Seq, head)
		return err
	})
	return out, err
}

// unsettled notes paths that may differ from the checkpoint although the
// journal after settled does not touch them. Each stands for the last
// entry that changed its content before settled when there is one (a
// deletion has none: an entry with no attribution stands in).
func (t *touched) unsettled(r *store.Reader, paths []string, settled uint64, f Filter, keep func(store.Change) bool) error {
	add := func(c store.Change) {
		if keep == nil || keep(c) {
			t.add(c)
		}
	}
	sk := r.NewSeeker()
	defer sk.Close()
	for _, p := range paths {
		if !f.match(p) {
			continue
		}
		// Noted even if keep counts none of its entries: it may differ
		// from the checkpoint, so it is never taken as born after settled.
		t.get(p)
		st, err := sk.StateAt(p, settled)
		if err != nil {
			return err
		}
		if st.Seq > 0 {
			err = r.Changes(st.Seq-1, st.Seq, func(c store.Change) error {
				if c.Path == p {
					add(c)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if !t.byPath[p].counted {
			add(store.Change{Seq: settled, Path: p})
		}
	}
	return nil
}
