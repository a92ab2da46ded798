package daemon

import (
	"context"
	"errors"
	"testing"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

// TestUndoVerbRoutes drives revert and history through the typed client,
// on a real engine behind a real socket; bad input comes back as bad input.
func TestUndoVerbRoutes(t *testing.T) {
	ts, root := serveOne(t, testTree{"a.txt": "a\n"})
	ctx := context.Background()
	w := ts.client.Workspace(root)
	if _, err := w.RunStart(ctx, "s1", "r1"); err != nil {
		t.Fatal(err)
	}
	testTree{"a.txt": "a by r1\n", "b.txt": "b by r1\n"}.write(t, root)
	if _, err := w.RunEnd(ctx, "s1", "r1"); err != nil {
		t.Fatal(err)
	}

	h, err := w.History(ctx, api.HistoryRequest{Path: "a.txt"})
	if err != nil || h.Path != "a.txt" || len(h.Versions) != 2 || h.Versions[0].By != "run" || h.Versions[0].RunID != "r1" || h.Versions[1].By != "person" {
		t.Fatalf("history a.txt: %+v, %v", h, err)
	}
	if h, err = w.History(ctx, api.HistoryRequest{Path: "a.txt", N: 1}); err != nil || len(h.Versions) != 1 {
		t.Fatalf("history a.txt, n 1: %+v, %v", h, err)
	}

	r, err := w.Revert(ctx, api.RevertRequest{Session: "s1", Run: "r1"})
	if err != nil || r.GuardCheckpointID == "" || len(r.Restored) != 2 || len(r.Conflicts) != 0 {
		t.Fatalf("revert: %+v, %v", r, err)
	}
	if got := readFile(t, root, "a.txt"); got != "a\n" {
		t.Fatalf("a.txt after revert: %q", got)
	}

	for name, call := range map[string]func() error{
		"revert of an unknown run": func() error {
			_, err := w.Revert(ctx, api.RevertRequest{Session: "s1", Run: "nope"})
			return err
		},
		"history of an unknown path": func() error {
			_, err := w.History(ctx, api.HistoryRequest{Path: "nope"})
			return err
		},
		"history outside the workspace": func() error {
			_, err := w.History(ctx, api.HistoryRequest{Path: "../x"})
			return err
		},
	} {
		if err := call(); !errors.Is(err, drift.ErrInvalid) {
			t.Errorf("%s: %v, want bad input", name, err)
		}
	}
}
