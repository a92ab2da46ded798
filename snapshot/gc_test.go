package snapshot

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// TestCollectBudget: with no age rule, a store over its size budget loses
// its oldest checkpoints until it fits, never the pinned ones (here the
// baseline of a run with a review mark, and the last run's), and reports
// it fits; a budget that pins prevent meeting is reported over.
func TestCollectBudget(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	rng := rand.NewChaCha8([32]byte{7})
	const mib = 1 << 20
	var cps []store.Checkpoint
	for i := range 8 {
		b := make([]byte, mib)
		rng.Read(b)
		e.must(os.WriteFile(filepath.Join(e.root, "big"), b, 0o644))
		cps = append(cps, e.cut(ReasonManual, store.Attr{}))
		if i == 6 {
			// The last run, whose baseline is cps[6].
			e.must(e.ws.Store().Write(func(w *store.Writer) error {
				return w.PutRun(store.Run{Session: "s", Run: "last", BaselineID: cps[6].ID, StartSeq: cps[6].Seq, StartedAt: pruneNow()})
			}))
		}
		if i == 5 {
			// A reviewed run whose baseline is cps[5].
			e.must(e.ws.Store().Write(func(w *store.Writer) error {
				if err := w.PutRun(store.Run{Session: "s", Run: "reviewed", BaselineID: cps[5].ID, StartSeq: cps[5].Seq, StartedAt: pruneNow().Add(-48 * KeepRecent)}); err != nil {
					return err
				}
				return w.PutReview(store.Review{Session: "s", Run: "reviewed", Path: "big", Mark: "accepted"})
			}))
		}
	}
	e.must(e.ws.SetCurrent(cps[7]))
	e.reopen() // the value log moves on, as a daemon's restart does

	before := e.ws.Store().Size()
	budget := before / 2
	gs, err := e.ws.Collect(e.ctx, Policy{MaxSize: budget}, false)
	e.must(err)
	t.Logf("%+v", gs)
	if gs.OverBudget || gs.BytesAfter > budget || gs.Checkpoints == 0 {
		t.Errorf("budget %d: %d -> %d bytes, over %v, pruned %d", budget, before, gs.BytesAfter, gs.OverBudget, gs.Checkpoints)
	}
	left, err := e.ws.Checkpoints(0)
	e.must(err)
	ids := func(cs []store.Checkpoint) (out []string) {
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}(left)
	for _, want := range []string{cps[5].ID, cps[6].ID, cps[7].ID} {
		if !slices.Contains(ids, want) {
			t.Errorf("%s pruned; left %v", want, ids)
		}
	}
	if !slices.ContainsFunc(gs.Pinned, func(p Pin) bool { return p.ID == cps[5].ID && p.Reason == PinReview }) {
		t.Errorf("pins %+v: want %s pinned for its review mark", gs.Pinned, cps[5].ID)
	}
	// The newest pinned checkpoint after the reviewed run's baseline holds
	// the rest: a budget of 1 byte cannot be met.
	gs, err = e.ws.Collect(e.ctx, Policy{MaxSize: 1}, false)
	e.must(err)
	if !gs.OverBudget {
		t.Errorf("budget 1 byte: not over budget: %+v", gs)
	}
	left, err = e.ws.Checkpoints(0)
	e.must(err)
	if len(left) == 0 || left[len(left)-1].ID != cps[5].ID {
		t.Errorf("after a budget of 1 byte the oldest checkpoint is %s, want the reviewed run's baseline %s", fmt.Sprint(left), cps[5].ID)
	}
	// A dry run changes nothing.
	n := len(left)
	gs, err = e.ws.Collect(e.ctx, Policy{MaxAge: KeepRecent}, true)
	e.must(err)
	left, err = e.ws.Checkpoints(0)
	e.must(err)
	if !gs.DryRun || len(left) != n || gs.BytesAfter != gs.BytesBefore {
		t.Errorf("dry run: %+v; %d checkpoints left, had %d", gs, len(left), n)
	}
}
