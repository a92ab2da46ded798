package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// TestRetentionHoldsUnreplicated: with a replication hold, retention by
// age and by size keeps every checkpoint after the replicated one and
// that one, and the journal after it; lifting the hold prunes them.
func TestRetentionHoldsUnreplicated(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	var cps []store.Checkpoint
	for i := range 5 {
		e.must(os.WriteFile(filepath.Join(e.root, "f"), fmt.Appendf(nil, "v%d", i), 0o644))
		cps = append(cps, e.cut(ReasonManual, store.Attr{}))
	}
	e.must(e.ws.SetCurrent(cps[4]))
	replicated := cps[1].Ord
	e.ws.SetReplicated(func(*store.Reader) (uint64, error) { return replicated, nil })
	gs, err := e.ws.Collect(e.ctx, Policy{MaxAge: KeepRecent, MaxSize: 1}, false)
	e.must(err)
	left := map[string]bool{}
	all, err := e.ws.Checkpoints(0)
	e.must(err)
	for _, cp := range all {
		left[cp.ID] = true
	}
	if left[cps[0].ID] || !left[cps[1].ID] || !left[cps[2].ID] || !left[cps[3].ID] {
		t.Fatalf("replicated through %s: left %v, pruned %v", cps[1].ID, left, gs.Pruned)
	}
	reasons := map[string]string{}
	for _, p := range gs.Pinned {
		reasons[p.ID] = p.Reason
	}
	if reasons[cps[1].ID] != PinReplicationBase || reasons[cps[2].ID] != PinUnreplicated || !gs.OverBudget {
		t.Errorf("pins %v, over budget %v", reasons, gs.OverBudget)
	}
	// The journal after the replicated checkpoint is still there.
	e.must(e.ws.Store().View(func(r *store.Reader) error {
		n := 0
		err := r.Changes(cps[1].Seq, ^uint64(0), func(store.Change) error { n++; return nil })
		if n < 3 {
			t.Errorf("%d journal entries after %s, want the 3 changes since", n, cps[1].ID)
		}
		return err
	}))

	e.ws.SetReplicated(nil)
	gs, err = e.ws.Collect(e.ctx, Policy{MaxAge: KeepRecent}, false)
	e.must(err)
	if gs.Checkpoints != 3 {
		t.Errorf("without the hold: pruned %v, want %s..%s", gs.Pruned, cps[1].ID, cps[3].ID)
	}
}
