package drift

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

// newEngine is an embedded engine on a temp workspace holding files.
func newEngine(t *testing.T, files map[string]string) (*Engine, string) {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		write(t, root, p, c)
	}
	ws, err := snapshot.Open(t.TempDir(), root, snapshot.Options{MaxFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	w := &watcher.Walker{Root: root, Ignorer: watcher.NewIgnorer(root, nil)}
	if _, _, err := ws.Import(context.Background(), w.Walk); err != nil {
		t.Fatal(err)
	}
	return New(ws, Options{Sync: func(ctx context.Context) error { return ws.Reconcile(ctx, w.Walk) }}), root
}

func write(t *testing.T, root, p, content string) {
	t.Helper()
	abs := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func paths(cs []api.Change) map[string]string {
	m := map[string]string{}
	for _, c := range cs {
		m[c.Path] = c.Kind
	}
	return m
}

func TestRunDriftRebase(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "1", "b": "1"})
	first, err := e.RunStart(ctx, "s", "r1")
	if err != nil || first.WorkspaceDrifted {
		t.Fatalf("first run: %+v %v", first, err)
	}
	write(t, root, "a", "run")
	end, err := e.RunEnd(ctx, "s", "r1")
	if err != nil || len(end.Files) != 1 || end.Files[0].CheckpointID != first.PrevCheckpointID {
		t.Fatalf("run end: %+v %v", end, err)
	}
	// The person edits between runs.
	write(t, root, "c", "person")
	os.Remove(filepath.Join(root, "b"))
	second, err := e.RunStart(ctx, "s", "r2")
	if err != nil {
		t.Fatal(err)
	}
	if !second.WorkspaceDrifted || second.Warning == "" || second.PrevCheckpointID == end.CheckpointID {
		t.Fatalf("second run start: %+v", second)
	}
	if got := paths(second.Drift); got["c"] != "added" || got["b"] != "deleted" || len(got) != 2 {
		t.Fatalf("drift = %v", got)
	}
	show, err := e.Show(ctx, second.PrevCheckpointID)
	if err != nil || show.Reason != snapshot.ReasonPreRunDriftRebase {
		t.Fatalf("baseline: %+v %v", show, err)
	}
	write(t, root, "a", "run2")
	if _, err := e.RunEnd(ctx, "s", "r2"); err != nil {
		t.Fatal(err)
	}
	d, err := e.RunDiff(ctx, api.RunRequest{Session: "s", Run: "r2"})
	if err != nil || d.PrevCheckpointID != second.PrevCheckpointID || !d.WorkspaceDrifted {
		t.Fatalf("run diff: %+v %v", d, err)
	}
	if got := paths(d.Files); len(got) != 1 || got["a"] != "modified" {
		t.Fatalf("run diff files = %v, want only a", got)
	}
	if _, err := e.RunDiff(ctx, api.RunRequest{Session: "s", Run: "r2", Checkpoint: end.CheckpointID}); err == nil {
		t.Fatal("a checkpoint of another run was accepted")
	}
}

func TestDefaultRestoreKeepsPersonEdits(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"agent.go": "v1", "notes.txt": "mine"})
	start, err := e.RunStart(ctx, "s", "r")
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "agent.go", "v2")
	write(t, root, "new.go", "x")
	if _, err := e.RunEnd(ctx, "s", "r"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "notes.txt", "mine, edited")
	res, err := e.Restore(ctx, api.RestoreRequest{ID: start.PrevCheckpointID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0].Path != "notes.txt" {
		t.Fatalf("kept = %+v", res.Kept)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "mine, edited" {
		t.Fatalf("the person's edit was overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "agent.go")); string(b) != "v1" {
		t.Fatalf("agent.go = %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "new.go")); !os.IsNotExist(err) {
		t.Fatal("new.go was not removed")
	}
	st, err := e.Status(ctx)
	if err != nil || st.CurrentCheckpointID != start.PrevCheckpointID || !st.Drifted {
		t.Fatalf("status after restore: %+v %v", st, err)
	}
	if _, err := e.Undo(ctx, api.RestoreRequest{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "agent.go")); string(b) != "v2" {
		t.Fatalf("after undo agent.go = %q", b)
	}
}

// Two sessions on one workspace at once, with tool windows opening and
// closing from many goroutines: every call succeeds or fails cleanly, and
// the store stays consistent (the fingerprint matches a fresh scan).
func TestConcurrentSessions(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"shared": "0"})
	var wg sync.WaitGroup
	for s := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			session := fmt.Sprintf("s%d", s)
			if _, err := e.RunStart(ctx, session, "r"); err != nil {
				t.Error(err)
				return
			}
			for i := range 10 {
				req := api.ToolRequest{Session: session, Run: "r", Call: fmt.Sprintf("c%d", i)}
				if _, err := e.ToolStart(ctx, req); err != nil {
					t.Error(err)
					return
				}
				write(t, root, fmt.Sprintf("%s/f%d", session, i), "x")
				if _, err := e.ToolEnd(ctx, req); err != nil {
					t.Error(err)
					return
				}
			}
			if _, err := e.RunEnd(ctx, session, "r"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	live := e.Workspace().Fingerprint()
	// A fresh import of the same tree must agree with the store.
	fresh, err := snapshot.Open(t.TempDir(), root, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	w := &watcher.Walker{Root: root}
	if _, _, err := fresh.Import(ctx, w.Walk); err != nil {
		t.Fatal(err)
	}
	if fp := fresh.Fingerprint(); fp != live {
		t.Fatalf("live fingerprint %+v, fresh scan %+v", live, fp)
	}
}
