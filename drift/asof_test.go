package drift

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// A run ended as of a moment already past keeps what was changed before
// it and gives what was changed after it to the person: drift, not the
// run's, kept byte for byte by a revert of the run. Captured together (one
// scan, as without a daemon) or apart (as the daemon's watcher does), and
// whatever order the scan meets the files in.
func TestRunEndAsOf(t *testing.T) {
	for _, apart := range []bool{false, true} {
		name := map[bool]string{false: "captured together", true: "captured apart"}[apart]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			e, root := newEngine(t, map[string]string{"z-agent": "old\n", "b-person": "mine\n", "gone": "x\n"})
			if _, err := e.RunStart(ctx, "s", "r1"); err != nil {
				t.Fatal(err)
			}
			call := api.ToolRequest{Session: "s", Run: "r1", Call: "c1", Command: "Bash"}
			if _, err := e.ToolStart(ctx, call); err != nil {
				t.Fatal(err)
			}
			write(t, root, "z-agent", "agent\n")
			write(t, root, "new-agent", "agent\n")
			if apart {
				syncNow(t, e)
			}
			time.Sleep(30 * time.Millisecond)
			asOf := time.Now()
			time.Sleep(30 * time.Millisecond)
			write(t, root, "b-person", "mine, edited after the interrupt\n")
			write(t, root, "a-person", "new\n")
			if apart {
				os.Remove(filepath.Join(root, "gone"))
				syncNow(t, e)
			}

			end, err := e.RunEndAsOf(ctx, "s", "r1", asOf)
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(end.Files); len(got) != 2 || got["z-agent"] != "modified" || got["new-agent"] != "added" {
				t.Fatalf("run's files = %v, want z-agent and new-agent only", got)
			}
			st, err := e.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"b-person": "modified", "a-person": "added"}
			if apart {
				want["gone"] = "deleted"
			}
			if got := paths(st.Changes); !st.Drifted || !sameMap(got, want) {
				t.Fatalf("drift after the end = %v (drifted %v), want %v", got, st.Drifted, want)
			}
			h, err := e.History(ctx, api.HistoryRequest{Path: "b-person"})
			if err != nil || len(h.Versions) == 0 || h.Versions[0].By != "person" {
				t.Fatalf("history of b-person: %+v %v", h, err)
			}
			// The open window ended at the same point.
			te, err := e.ToolEnd(ctx, call)
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(te.Changes); len(got) != 2 || got["z-agent"] == "" || got["new-agent"] == "" {
				t.Fatalf("the window's changes = %v", got)
			}
			// The end checkpoint is the workspace as of the moment.
			show, err := e.Show(ctx, end.CheckpointID)
			if err != nil {
				t.Fatal(err)
			}
			if show.Files != 4 {
				t.Fatalf("end checkpoint holds %d files, want 4", show.Files)
			}

			rv, err := e.Revert(ctx, api.RevertRequest{Session: "s", Run: "r1"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rv.Conflicts) != 0 {
				t.Fatalf("conflicts: %+v", rv.Conflicts)
			}
			for p, c := range map[string]string{"z-agent": "old\n", "b-person": "mine, edited after the interrupt\n", "a-person": "new\n"} {
				if b, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(b) != c {
					t.Errorf("%s after the revert = %q %v, want %q", p, b, err, c)
				}
			}
			if _, err := os.Lstat(filepath.Join(root, "new-agent")); !os.IsNotExist(err) {
				t.Errorf("new-agent survived the revert: %v", err)
			}
		})
	}
}

// An as-of moment before the run's first change ends it with no changes;
// one in the future is now.
func TestRunEndAsOfBounds(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"f": "1"})
	if _, err := e.RunStart(ctx, "s", "early"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "f", "2")
	end, err := e.RunEndAsOf(ctx, "s", "early", time.Now().Add(-time.Hour))
	if err != nil || len(end.Files) != 0 {
		t.Fatalf("end as of an hour ago: %+v %v", end, err)
	}
	if _, err := e.RunStart(ctx, "s", "late"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "f", "3")
	end, err = e.RunEndAsOf(ctx, "s", "late", time.Now().Add(time.Hour))
	if err != nil || len(end.Files) != 1 {
		t.Fatalf("end as of an hour ahead: %+v %v", end, err)
	}
	again, err := e.RunEndAsOf(ctx, "s", "late", time.Now().Add(-time.Hour))
	if err != nil || again.CheckpointID != end.CheckpointID {
		t.Fatalf("ending an ended run again: %+v %v, want it as it ended (%s)", again, err, end.CheckpointID)
	}
}

func syncNow(t *testing.T, e *Engine) {
	t.Helper()
	if err := e.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
