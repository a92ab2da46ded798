package snapshot

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// deltaEdit changes a source file the way a person or an agent does: a
// line appended, replaced or inserted somewhere, or a block cut.
func deltaEdit(rng *rand.Rand, b []byte, step int) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	at := rng.IntN(len(lines))
	line := []byte(fmt.Sprintf("\tstep%d := %d // edited\n", step, rng.IntN(1000)))
	switch rng.IntN(4) {
	case 0:
		lines = append(lines, line)
	case 1:
		lines[at] = line
	case 2:
		lines = append(lines[:at], append([][]byte{line}, lines[at:]...)...)
	default:
		lines = append(lines[:at], lines[min(len(lines), at+3):]...)
	}
	return bytes.Join(lines, nil)
}

func deltaSource(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "\tv%d := call(%d, %d) // %x\n", i, rng.IntN(1000), rng.IntN(1000), rng.Uint64())
	}
	return b.Bytes()
}

// TestCaptureEditChainsRestoreAndPrune: files edited many times (their
// contents stored as chains of deltas, longer than a chain may get) restore
// exactly to every checkpoint, before and after a prune that drops the
// checkpoints holding the chains' first versions, and before and after a
// reopen.
func TestCaptureEditChainsRestoreAndPrune(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	rng := rand.New(rand.NewPCG(21, 22))
	files := map[string][]byte{"main.go": deltaSource(rng, 400), "d/util.go": deltaSource(rng, 50)}
	write := func() {
		for name, b := range files {
			p := filepath.Join(e.root, filepath.FromSlash(name))
			e.must(os.MkdirAll(filepath.Dir(p), 0o755))
			e.must(os.WriteFile(p, b, 0o644))
		}
	}
	write()
	var (
		cps   []store.Checkpoint
		trees = map[string]map[string]string{}
	)
	const steps = 40
	for i := range steps {
		files["main.go"] = deltaEdit(rng, files["main.go"], i)
		if i%3 == 0 {
			files["d/util.go"] = deltaEdit(rng, files["d/util.go"], i)
		}
		write()
		cp := e.cut(ReasonManual, store.Attr{})
		cps = append(cps, cp)
		trees[cp.ID] = e.disk()
	}
	restoreAll := func(when string, targets []store.Checkpoint) {
		t.Helper()
		for _, cp := range targets {
			// Spoil the files first, so that the restore reads every one.
			for name := range files {
				e.must(os.WriteFile(filepath.Join(e.root, filepath.FromSlash(name)), []byte("spoiled\n"), 0o644))
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
	restoreAll("before prune", []store.Checkpoint{cps[3], cps[steps-1], cps[20], cps[0], cps[33]})

	// Keep only a checkpoint in the middle of a chain (current) and the
	// last; the prune must keep every base they need.
	keep := cps[steps-7]
	restoreAll("make current", []store.Checkpoint{keep})
	stats, err := e.ws.Prune(e.ctx, time.Now().Add(time.Hour))
	e.must(err)
	if stats.Blobs == 0 {
		t.Errorf("prune deleted no blobs: %+v", stats)
	}
	left, err := e.ws.Checkpoints(0)
	e.must(err)
	var kept []store.Checkpoint
	for _, cp := range left {
		if _, ok := trees[cp.ID]; ok {
			kept = append(kept, cp)
		}
	}
	if len(kept) == 0 || len(kept) > 5 {
		t.Fatalf("%d of the edit checkpoints left after the prune, want 1 to 5", len(kept))
	}
	restoreAll("after prune", kept)
	e.reopen()
	restoreAll("after reopen", kept)
}
