package snapshot

import (
	"slices"

	"github.com/ckptdev/ckpt/store"
)

// KeptDrift is what a drift read of the journal since one checkpoint, kept
// between calls of Workspace.KeptDrift so that each reads only the journal
// entries committed since the one before: a status after thousands of edits
// since the current checkpoint reads the few entries since the last status,
// not all of them. Its zero value is ready; it is not safe for concurrent
// use.
type KeptDrift struct {
	t    *touched
	upTo uint64   // the journal was read up to this seq
	key  driftKey // where it was read from
	// large: the last drift held more than maxKeptPaths paths, so the
	// next is made with room for all its entries at once.
	large bool
}

// driftKey is where a kept drift starts: the journal after from, and
// first the paths a restore left unsettled when from is its settled seq.
type driftKey struct {
	id        string
	seq, from uint64
	unsettled []string
}

func (k driftKey) equal(o driftKey) bool {
	return k.id == o.id && k.seq == o.seq && k.from == o.from && slices.Equal(k.unsettled, o.unsettled)
}

// maxKeptPaths bounds the paths a KeptDrift holds between calls (about
// 500 bytes each): a drift over more is read again by every call, which
// then costs about what its paths do anyway.
const maxKeptPaths = 8192

// KeptDrift is Drift(cp, nil, keep), the same answer, with k holding what
// the journal read so far said. k is read on from where the last call
// left it when that call drifted from the same position (cp, and the same
// settled seq and unsettled paths of a restore back to it); otherwise, or
// when it held too many paths, reset is called and the journal since the
// checkpoint read again. keep, if set, is called once for each entry read,
// so what it gathers since the last reset is what one Drift would have
// told it; reset must forget it (paths: how many paths to make room for).
func (ws *Workspace) KeptDrift(k *KeptDrift, cp store.Checkpoint, reset func(paths int), keep func(store.Change) bool) ([]FileChange, error) {
	head := ws.st.Head()
	var out []FileChange
	err := ws.st.View(func(r *store.Reader) error {
		s, err := r.Workspace()
		if err != nil {
			return err
		}
		key := driftKey{id: cp.ID, seq: cp.Seq, from: cp.Seq}
		settled := s.CurrentCheckpointID == cp.ID && s.SettledSeq > cp.Seq && s.SettledSeq <= head
		if settled {
			key.from, key.unsettled = s.SettledSeq, s.Unsettled
		}
		if k.t == nil || !k.key.equal(key) || head < k.upTo {
			hint := min(head-min(key.from, head)+uint64(len(key.unsettled)), maxTouchedHint)
			if !k.large {
				hint = min(hint, maxKeptPaths)
			}
			if reset != nil {
				reset(int(hint))
			}
			k.t, k.key, k.upTo = nil, key, key.from
			t := newTouched(hint)
			if settled {
				if err := t.unsettled(r, key.unsettled, key.from, nil, keep); err != nil {
					return err
				}
			}
			k.t = t
		}
		if err := k.t.collect(r, k.upTo, head, nil, keep); err != nil {
			k.t = nil
			return err
		}
		k.upTo = max(k.upTo, head)
		out, err = k.t.resolve(r, cp.Seq, head)
		k.large = len(k.t.byPath) > maxKeptPaths
		if err != nil || k.large {
			k.t = nil
		}
		return err
	})
	return out, err
}
