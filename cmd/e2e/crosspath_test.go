package e2e

import (
	"maps"
	"slices"
	"testing"
)

// TestCrossPathDeltas: a new file like a stored one in the same directory
// (a copy with an edit) costs the store a delta, not a second whole copy;
// every checkpoint restores byte for byte; and after the base's own path
// is deleted and ckpt gc prunes every checkpoint that held it, the new
// file still restores (its delta's base kept).
func TestCrossPathDeltas(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		const size = 512 << 10
		ws := newWorkspace(t, m, "CKPT_TEST_PRUNE_AHEAD=72h")
		big := incompressible(11, size)
		ws.write("a/keep.txt", "kept\n")
		ws.write("a/big.bin", big)
		ws.start()
		var cps []checkpointJSON
		trees := map[string]tree{}
		cut := func(msg string) {
			t.Helper()
			var cp checkpointJSON
			ws.ckptJSON(&cp, "checkpoint", "-m", msg)
			cps = append(cps, cp)
			trees[cp.CheckpointID] = ws.tree()
		}
		cut("one")
		du := storeDU(t, ws.state)
		copyEdited := big[:size/2] + "an edit in the middle of the copy" + big[size/2:]
		ws.write("a/big2.bin", copyEdited)
		cut("a copy, edited")
		if grew := storeDU(t, ws.state) - du; grew >= size/4 {
			t.Fatalf("the store grew by %d bytes for a %d-byte copy of a stored file with one edit: want a delta", grew, size)
		}
		ws.rm("a/big.bin")
		ws.write("a/keep.txt", "kept, edited\n")
		cut("the original gone")
		for _, cp := range []checkpointJSON{cps[0], cps[1], cps[2], cps[0]} {
			ws.write("a/big2.bin", "spoiled\n")
			ws.ckptOK("restore", cp.CheckpointID, "--exact", "--yes")
			if got := ws.tree(); !maps.Equal(got, trees[cp.CheckpointID]) {
				t.Fatalf("restore %s (%s) is not what it held", cp.CheckpointID, cp.Message)
			}
		}
		// Back to the last, then one more checkpoint made current by a
		// restore: the checkpoints that held a/big.bin are pinned by
		// nothing and old to retention.
		ws.ckptOK("restore", cps[2].CheckpointID, "--exact", "--yes")
		ws.write("a/keep.txt", "kept, edited again\n")
		cut("the last")
		last := cps[3]
		ws.write("a/big2.bin", "spoiled\n")
		ws.ckptOK("restore", last.CheckpointID, "--exact", "--yes")
		var gc gcJSON
		r := ws.ckptEnv([]string{"CKPT_RETENTION=1d"}, "gc", "--json")
		if r.code != 0 || decodeOne(r.stdout, &gc) != nil {
			t.Fatalf("gc:\n%s", r)
		}
		for _, cp := range cps[:2] {
			if !slices.Contains(gc.Pruned, cp.CheckpointID) {
				t.Fatalf("gc kept %s (%s): pruned %v, pinned %+v", cp.CheckpointID, cp.Message, gc.Pruned, gc.Pinned)
			}
		}
		ws.write("a/big2.bin", "spoiled\n")
		ws.ckptOK("restore", last.CheckpointID, "--exact", "--yes")
		if got := ws.read("a/big2.bin"); got != copyEdited {
			t.Fatalf("a/big2.bin restored after the gc: %d bytes, want the %d of the copy", len(got), len(copyEdited))
		}
		if got := ws.tree(); !maps.Equal(got, trees[last.CheckpointID]) {
			t.Fatal("the last checkpoint's restore after the gc is not what it held")
		}
	})
}
