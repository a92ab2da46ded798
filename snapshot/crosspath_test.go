package snapshot

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// deltaBlobs counts the store's contents stored as deltas.
func (e *pruneEnv) deltaBlobs() int {
	e.t.Helper()
	usage, err := e.ws.Store().Usage()
	e.must(err)
	for _, u := range usage {
		if u.Kind == "blob delta" {
			return u.Keys
		}
	}
	return 0
}

// TestCrossPathDeltasRestoreAndPrune: a new path's content is stored as a
// delta against a similar stored content (a file moved to another
// directory with an edit: against the content its old path held; a new
// sibling with the same extension: against the sibling's); every
// checkpoint restores exactly, and after the paths holding the bases are
// deleted and the checkpoints that held them pruned, the deltas still
// read (their bases kept), also after a reopen.
func TestCrossPathDeltasRestoreAndPrune(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	rng := rand.New(rand.NewPCG(7, 8))
	write := func(name string, b []byte) {
		p := filepath.Join(e.root, filepath.FromSlash(name))
		e.must(os.MkdirAll(filepath.Dir(p), 0o755))
		e.must(os.WriteFile(p, b, 0o644))
	}
	remove := func(name string) { e.must(os.Remove(filepath.Join(e.root, filepath.FromSlash(name)))) }
	x, y := deltaSource(rng, 300), deltaSource(rng, 200)
	write("a/x.go", x)
	write("a/y.go", y)
	write("notes.txt", deltaSource(rng, 20))
	trees := map[string]map[string]string{}
	var cps []store.Checkpoint
	cut := func() {
		cp := e.cut(ReasonManual, store.Attr{})
		cps = append(cps, cp)
		trees[cp.ID] = e.disk()
	}
	cut()
	before := e.deltaBlobs()
	remove("a/x.go")
	write("b/x.go", deltaEdit(rng, x, 1))  // moved, and edited
	write("a/w.go", deltaEdit(rng, y, 2))  // a new sibling like a/y.go
	write("b/v.go", deltaSource(rng, 100)) // nothing like it: whole
	cut()
	if got := e.deltaBlobs() - before; got != 2 {
		t.Fatalf("%d new contents stored as deltas after a move and a new similar sibling; want 2", got)
	}
	remove("a/y.go")
	remove("b/x.go")
	write("a/w.go", deltaEdit(rng, deltaEdit(rng, y, 2), 3))
	cut()
	restoreAll := func(when string, targets []store.Checkpoint) {
		t.Helper()
		for _, cp := range targets {
			for name := range trees[cp.ID] {
				write(name, []byte("spoiled\n"))
			}
			e.reconcile()
			if _, err := e.ws.Restore(e.ctx, cp, RestoreOptions{}); err != nil {
				t.Fatalf("%s: restore %s: %v", when, cp.ID, err)
			}
			if got := e.disk(); !reflect.DeepEqual(got, trees[cp.ID]) {
				t.Fatalf("%s: restore %s is not what the checkpoint held", when, cp.ID)
			}
		}
	}
	restoreAll("before prune", []store.Checkpoint{cps[1], cps[0], cps[1], cps[2]})
	// Only the last checkpoint left (and what the last restore pins:
	// its target and guard, both after the deletes): a/w.go's chain needs
	// a/y.go's content, which no checkpoint holds any more.
	write("notes.txt", []byte("the last version\n"))
	cut()
	restoreAll("make current", cps[3:])
	stats, err := e.ws.Prune(e.ctx, time.Now().Add(time.Hour))
	e.must(err)
	for _, cp := range cps[:2] {
		if !slices.Contains(stats.Pruned, cp.ID) {
			t.Fatalf("the prune kept %s (pruned %v): the test needs every checkpoint that holds a/y.go gone", cp.ID, stats.Pruned)
		}
	}
	restoreAll("after prune", cps[3:])
	_, err = e.ws.Store().Reclaim()
	e.must(err)
	e.reopen()
	restoreAll("after reclaim and reopen", cps[3:])
}
