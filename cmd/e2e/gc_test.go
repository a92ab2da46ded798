package e2e

import (
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

type gcJSON struct {
	DryRun          bool     `json:"dry_run"`
	Checkpoints     int      `json:"checkpoints"`
	Pruned          []string `json:"pruned"`
	Blobs           int      `json:"blobs"`
	BytesBefore     int64    `json:"bytes_before"`
	BytesAfter      int64    `json:"bytes_after"`
	CheckpointsLeft int      `json:"checkpoints_left"`
	Pinned          []struct {
		CheckpointID string `json:"checkpoint_id"`
		Reason       string `json:"reason"`
	} `json:"pinned"`
	OverBudget bool `json:"over_budget"`
}

// incompressible is n bytes that zstd cannot shrink, different per seed.
func incompressible(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return string(b)
}

// storeDU is what du says the state directory takes, less the reserve
// files (space set aside, the same whatever the store holds).
func storeDU(t *testing.T, state string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "reserve" {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += info.Sys().(*syscall.Stat_t).Blocks * 512
		}
		return nil
	})
	return n
}

func (ws *workspace) logIDs() []string {
	ws.t.Helper()
	var l logJSON
	ws.ckptJSON(&l, "log")
	var ids []string
	for _, c := range l.Checkpoints {
		ids = append(ids, c.CheckpointID)
	}
	return ids
}

// TestGC is ckpt gc on a store whose old checkpoints hold contents nothing
// else needs: the dry run names what the real one prunes and changes
// nothing; the real one keeps every pinned checkpoint (the last restore's
// target, its guard, the checkpoint current before it, the last run's
// baseline and end), deletes the others older than retention and their
// contents, and the disk usage of the state directory really drops, with
// the daemon still running; then undo still works, and a restore of a
// surviving checkpoint is byte-exact.
func TestGC(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		const mib = 1 << 20
		// The checkpoints made now look 3 days old to retention.
		ws := newWorkspace(t, m, "CKPT_TEST_PRUNE_AHEAD=72h")
		ws.write("keep.txt", "kept\n")
		ws.write("big.bin", incompressible(0, mib))
		ws.start()
		var cps []checkpointJSON
		for i := 1; i <= 3; i++ {
			ws.write("big.bin", incompressible(uint64(i), mib))
			var cp checkpointJSON
			ws.ckptJSON(&cp, "checkpoint", "-m", "old")
			cps = append(cps, cp)
		}
		initial := ws.logIDs()[3]
		var rs runStartJSON
		ws.ckptJSON(&rs, "run", "start", "--session", "s1", "--run", "r1")
		ws.write("a.txt", "the run's edit\n")
		ws.write("big.bin", incompressible(4, mib))
		var re struct {
			CheckpointID string `json:"checkpoint_id"`
		}
		ws.ckptJSON(&re, "run", "end", "--session", "s1", "--run", "r1")
		afterRun := ws.tree()
		var rst restoreJSON
		ws.ckptJSON(&rst, "restore", cps[1].CheckpointID, "--exact", "--yes")
		atTarget := ws.tree()

		retain := []string{"CKPT_RETENTION=1d"}
		before := ws.logIDs()
		r := ws.ckptEnv(retain, "gc", "--dry-run", "--json")
		var dry gcJSON
		if r.code != 0 || decodeOne(r.stdout, &dry) != nil {
			t.Fatalf("gc --dry-run:\n%s", r)
		}
		if got := ws.logIDs(); !slices.Equal(got, before) {
			t.Fatalf("gc --dry-run changed the checkpoints: %v, was %v", got, before)
		}
		duBefore := storeDU(t, ws.state)
		r = ws.ckptEnv(retain, "gc", "--json")
		var gc gcJSON
		if r.code != 0 || decodeOne(r.stdout, &gc) != nil {
			t.Fatalf("gc:\n%s", r)
		}
		duAfter := storeDU(t, ws.state) // the daemon, if any, still runs
		slices.Sort(dry.Pruned)
		slices.Sort(gc.Pruned)
		if !dry.DryRun || gc.DryRun || !slices.Equal(dry.Pruned, gc.Pruned) {
			t.Errorf("gc --dry-run would prune %v, gc pruned %v", dry.Pruned, gc.Pruned)
		}
		for _, id := range []string{initial, cps[0].CheckpointID, cps[2].CheckpointID} {
			if !slices.Contains(gc.Pruned, id) {
				t.Errorf("gc kept %s (old, pinned by nothing); pruned %v, pinned %+v", id, gc.Pruned, gc.Pinned)
			}
		}
		left := ws.logIDs()
		pins := map[string]string{}
		for _, p := range gc.Pinned {
			pins[p.CheckpointID] = p.Reason
			if !slices.Contains(left, p.CheckpointID) {
				t.Errorf("pinned %s (%s) is gone: log %v", p.CheckpointID, p.Reason, left)
			}
		}
		for id, why := range map[string]string{
			cps[1].CheckpointID:   "", // the restore's target, and current
			rst.GuardCheckpointID: "restore_guard",
			rs.PrevCheckpointID:   "", re.CheckpointID: "", // the last run's (or pinned for more)
		} {
			if _, ok := pins[id]; !ok || why != "" && pins[id] != why {
				t.Errorf("%s: pinned as %q, want %q (pins %v)", id, pins[id], why, pins)
			}
		}
		if gc.CheckpointsLeft != len(left) || len(left)+len(gc.Pruned) != len(before) {
			t.Errorf("gc: %d left, %d pruned; the log had %d, has %d", gc.CheckpointsLeft, len(gc.Pruned), len(before), len(left))
		}
		// Two 1 MiB contents only the pruned checkpoints before the oldest
		// one left needed (seeds 0 and 1); seed 3's stays, as the history
		// after the oldest checkpoint left does.
		if gc.Blobs < 2 || gc.BytesAfter > gc.BytesBefore-3*mib/2 {
			t.Errorf("gc freed %d contents, %d -> %d bytes; want at least 2 and 1.5 MiB", gc.Blobs, gc.BytesBefore, gc.BytesAfter)
		}
		if duAfter > duBefore-3*mib/2 {
			t.Errorf("du of the state directory: %d -> %d bytes; want 1.5 MiB less", duBefore, duAfter)
		}
		if !strings.Contains(ws.ckptOK("gc", "--dry-run"), "pinned: "+cps[1].CheckpointID+" (") {
			t.Errorf("gc --dry-run (text) does not name the pinned restore target")
		}

		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "undo after gc", afterRun, ws.tree())
		ws.ckptJSON(&u, "restore", cps[1].CheckpointID, "--exact", "--yes")
		assertTree(t, "restore of a surviving checkpoint after gc", atTarget, ws.tree())
		if r := ws.ckptResult("restore", cps[0].CheckpointID, "--yes"); r.code != 2 {
			t.Errorf("restore of a pruned checkpoint: want exit 2\n%s", r)
		}
	})
}

// TestGCBadInput: a bad flag or an argument is one line on stderr and exit
// 2, and changes nothing.
func TestGCBadInput(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("f.txt", "x\n")
		ws.start()
		before := ws.logIDs()
		for _, args := range [][]string{{"gc", "--bogus"}, {"gc", "now"}, {"gc", "--dry-run=maybe"}} {
			r := ws.ckptResult(args...)
			if r.code != 2 || r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stderr == "" {
				t.Errorf("ckpt %v: want exit 2 and one line on stderr\n%s", args, r)
			}
		}
		if got := ws.logIDs(); !slices.Equal(got, before) {
			t.Errorf("bad gc input changed the checkpoints: %v, was %v", got, before)
		}
	})
}
