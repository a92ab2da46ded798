package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"testing"
)

// TestStatusMatchesRecompute: after random writes, deletes, renames of
// files and directories, runs (which move the current checkpoint) and
// exact restores, ckpt status lists exactly what differs between the disk
// and the tree the current checkpoint held, as a recompute from scratch
// finds it.
func TestStatusMatchesRecompute(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		for i := range 12 {
			ws.write(fmt.Sprintf("d%d/f%d.txt", i%3, i), fmt.Sprint(i))
		}
		ws.start()
		cur := ws.tree()
		held := map[string]tree{}
		var ids []string
		rng := rand.New(rand.NewPCG(5, 9))
		files := func() []string {
			var out []string
			for p, n := range ws.tree() {
				if n.Kind != "dir" {
					out = append(out, p)
				}
			}
			slices.Sort(out)
			return out
		}
		for step := range 20 {
			fs := files()
			var what string
			switch k := rng.IntN(10); {
			case k < 3 || len(fs) < 3:
				p := fmt.Sprintf("d%d/n%d.txt", rng.IntN(4), rng.IntN(20))
				ws.write(p, fmt.Sprint(step))
				what = "write " + p
			case k < 4:
				p := fs[rng.IntN(len(fs))]
				ws.rm(p)
				what = "delete " + p
			case k < 5:
				p := fs[rng.IntN(len(fs))]
				to := path.Join(path.Dir(p), fmt.Sprintf("mv%d", step))
				if err := os.Rename(ws.path(p), ws.path(to)); err != nil {
					t.Fatal(err)
				}
				what = "rename " + p + " to " + to
			case k < 6:
				d := path.Dir(fs[rng.IntN(len(fs))])
				to := fmt.Sprintf("moved%d", step)
				if err := os.Rename(ws.path(d), ws.path(to)); err != nil {
					t.Fatal(err)
				}
				what = "rename directory " + d + " to " + to
			case k < 8:
				run := fmt.Sprintf("r%d", step)
				var st runStartJSON
				ws.ckptJSON(&st, "run", "start", "--session", "s", "--run", run)
				held[st.PrevCheckpointID] = ws.tree()
				ws.write(fmt.Sprintf("run/%s.txt", run), run)
				var end struct {
					CheckpointID string `json:"checkpoint_id"`
				}
				ws.ckptJSON(&end, "run", "end", "--session", "s", "--run", run)
				cur = ws.tree()
				held[end.CheckpointID] = cur
				ids = append(ids, st.PrevCheckpointID, end.CheckpointID)
				what = "run " + run
			default:
				if len(ids) == 0 {
					continue
				}
				id := ids[rng.IntN(len(ids))]
				ws.ckptOK("restore", id, "--exact", "--yes")
				cur = held[id]
				what = "restore --exact " + id
			}
			s := ws.status()
			if !stormAssertChanges(t, fmt.Sprintf("step %d (%s): ckpt status", step, what), s.Changes, stormExpected(cur, ws.tree())) {
				t.FailNow()
			}
		}
	})
}
