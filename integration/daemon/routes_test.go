package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ckptdev/ckpt/integration/api"
)

// TestEngineRoutes drives every engine route through the typed client, on
// a real engine behind a real socket, in the order an agent would.
func TestEngineRoutes(t *testing.T) {
	ts, root := serveOne(t, testTree{"a.txt": "a\n", "dir/b.txt": "b\n"})
	ctx := context.Background()
	w := ts.client.Workspace(root)
	write := func(p, content string) { testTree{p: content}.write(t, root) }
	wantChanges := func(what string, got []api.Change, want ...string) {
		t.Helper()
		if g := paths(got); !slices.Equal(g, want) {
			t.Fatalf("%s: changes %v, want %v", what, g, want)
		}
	}

	st, err := w.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Workspace != root || st.Drifted || st.Files != 2 || !st.Daemon.Running || st.Daemon.PID != os.Getpid() {
		t.Fatalf("status of a fresh import: %+v", st)
	}
	log, err := w.Log(ctx, 0)
	if err != nil || len(log.Checkpoints) != 1 || log.Checkpoints[0].Reason != "initial" {
		t.Fatalf("log: %+v, %v", log, err)
	}
	initial := log.Checkpoints[0].CheckpointID

	write("c.txt", "c\n")
	st, err = w.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Drifted {
		t.Errorf("status after adding c.txt: not drifted")
	}
	wantChanges("status", st.Changes, "added:c.txt")

	cp, err := w.Checkpoint(ctx, "with c")
	if err != nil || cp.Reason != "manual" || cp.Message != "with c" || cp.Files != 3 {
		t.Fatalf("checkpoint: %+v, %v", cp, err)
	}
	show, err := w.Show(ctx, cp.CheckpointID)
	if err != nil || show.PrevCheckpointID != initial {
		t.Fatalf("show: %+v, %v", show, err)
	}
	wantChanges("show", show.Changes, "added:c.txt")
	if log, err = w.Log(ctx, 1); err != nil || len(log.Checkpoints) != 1 || log.Checkpoints[0].CheckpointID != cp.CheckpointID {
		t.Fatalf("log -n 1: %+v, %v", log, err)
	}

	d, err := w.Diff(ctx, api.DiffRequest{From: initial, To: cp.CheckpointID})
	if err != nil || d.PrevCheckpointID != initial || d.CheckpointID != cp.CheckpointID {
		t.Fatalf("diff: %+v, %v", d, err)
	}
	wantChanges("diff", d.Files, "added:c.txt")
	if d, err = w.Diff(ctx, api.DiffRequest{From: initial, Paths: []string{"dir"}}); err != nil {
		t.Fatal(err)
	}
	wantChanges("diff -- dir", d.Files)

	rs, err := w.RunStart(ctx, "s1", "r1")
	if err != nil || rs.SessionID != "s1" || rs.RunID != "r1" || rs.PrevCheckpointID == "" {
		t.Fatalf("run start: %+v, %v", rs, err)
	}
	tool := api.ToolRequest{Session: "s1", Run: "r1", Call: "call1", Command: "edit a.txt"}
	pre, err := w.ToolStart(ctx, tool)
	if err != nil || pre.Reason != "pre_write" || pre.ToolCallID != "call1" {
		t.Fatalf("tool start: %+v, %v", pre, err)
	}
	write("a.txt", "agent's a\n")
	te, err := w.ToolEnd(ctx, tool)
	if err != nil || te.CheckpointID != pre.CheckpointID || te.Command != "edit a.txt" {
		t.Fatalf("tool end: %+v, %v", te, err)
	}
	wantChanges("tool end", te.Changes, "modified:a.txt")
	re, err := w.RunEnd(ctx, "s1", "r1")
	if err != nil || re.CheckpointID == "" || re.PrevCheckpointID != rs.PrevCheckpointID {
		t.Fatalf("run end: %+v, %v", re, err)
	}
	wantChanges("run end", re.Files, "modified:a.txt")
	rd, err := w.RunDiff(ctx, api.RunRequest{Session: "s1", Run: "r1"})
	if err != nil || rd.PrevCheckpointID != rs.PrevCheckpointID || rd.CheckpointID != re.CheckpointID {
		t.Fatalf("run diff: %+v, %v", rd, err)
	}
	wantChanges("run diff", rd.Files, "modified:a.txt")

	rr, err := w.Restore(ctx, api.RestoreRequest{ID: rs.PrevCheckpointID})
	if err != nil || rr.GuardCheckpointID == "" || rr.CheckpointID != rs.PrevCheckpointID {
		t.Fatalf("restore: %+v, %v", rr, err)
	}
	if got := readFile(t, root, "a.txt"); got != "a\n" {
		t.Fatalf("a.txt after restore: %q", got)
	}
	if _, err := w.Undo(ctx, api.RestoreRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, "a.txt"); got != "agent's a\n" {
		t.Fatalf("a.txt after undo: %q", got)
	}
}

func readFile(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
