package drift

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ckptdev/ckpt/integration/api"
)

func TestReviewMarksPersistAndRefuseBadInput(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "1", "b": "1"})
	if _, err := e.RunStart(ctx, "s", "r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ToolStart(ctx, api.ToolRequest{Session: "s", Run: "r1", Call: "c1", Command: "Edit " + filepath.Join(root, "a")}); err != nil {
		t.Fatal(err)
	}
	write(t, root, "a", "2")
	if _, err := e.ToolEnd(ctx, api.ToolRequest{Session: "s", Run: "r1", Call: "c1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RunEnd(ctx, "s", "r1"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []api.ReviewRequest{
		{Session: "s", Run: "r1", Path: "b", Mark: api.MarkAccepted},             // not changed by the run
		{Session: "s", Run: "r1", Path: "../etc/passwd", Mark: api.MarkAccepted}, // outside
		{Session: "s", Run: "r1", Path: "a", Mark: "maybe"},
		{Session: "s", Run: "nope", Path: "a", Mark: api.MarkAccepted},
	} {
		if _, err := e.Review(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Review(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := e.Review(ctx, api.ReviewRequest{Session: "s", Run: "r1", Path: "a", Mark: api.MarkRejected}); err != nil {
		t.Fatal(err)
	}
	rv, err := e.Reviews(ctx, "s", "r1")
	if err != nil || len(rv.Reviews) != 1 || rv.Reviews[0].Mark != api.MarkRejected {
		t.Fatalf("Reviews = %+v, %v; want a rejected", rv, err)
	}
	if _, err := e.Review(ctx, api.ReviewRequest{Session: "s", Run: "r1", Path: "a"}); err != nil {
		t.Fatal(err)
	}
	if rv, _ := e.Reviews(ctx, "s", "r1"); len(rv.Reviews) != 0 {
		t.Fatalf("after clearing: %+v", rv)
	}

	runs, err := e.Runs(ctx)
	if err != nil || len(runs.Runs) != 1 || len(runs.Runs[0].Calls) != 1 || runs.Runs[0].Open {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	calls, err := e.ToolCalls(ctx, api.RunRequest{Session: "s", Run: "r1", Patch: true})
	if err != nil || len(calls.Calls) != 1 || len(calls.Calls[0].Changes) != 1 || calls.Calls[0].Changes[0].Patch == "" {
		t.Fatalf("ToolCalls = %+v, %v", calls, err)
	}
	if p := e.PendingPath(calls.Calls[0].Command); p != "a" {
		t.Fatalf("PendingPath(%q) = %q, want a", calls.Calls[0].Command, p)
	}
	for _, cmd := range []string{"Edit /etc/passwd", "Edit " + root + "/../x", "go test ./...", "Edit"} {
		if p := e.PendingPath(cmd); p != "" {
			t.Errorf("PendingPath(%q) = %q, want none", cmd, p)
		}
	}
}

func TestCheckpointsPages(t *testing.T) {
	ctx := context.Background()
	e, _ := newEngine(t, map[string]string{"a": "1"})
	for i := 0; i < 5; i++ {
		if _, err := e.Checkpoint(ctx, "m"); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := e.Log(ctx, 0)
	p1, err := e.Checkpoints(ctx, "", 2)
	if err != nil || len(p1.Checkpoints) != 2 || !p1.More || p1.Checkpoints[0].CheckpointID != all.Checkpoints[0].CheckpointID {
		t.Fatalf("page 1 = %+v, %v", p1, err)
	}
	p2, err := e.Checkpoints(ctx, p1.Checkpoints[1].CheckpointID, 100)
	if err != nil || len(p2.Checkpoints) != len(all.Checkpoints)-2 || p2.More {
		t.Fatalf("page 2 = %+v, %v (of %d)", p2, err, len(all.Checkpoints))
	}
	if _, err := e.Checkpoints(ctx, "ck9-nope", 1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown before: %v", err)
	}
}

func TestVersionDiffBetweenTwoVersions(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "one\n"})
	write(t, root, "a", "two\n")
	write(t, root, "a", "three\n")
	h, err := e.History(ctx, api.HistoryRequest{Path: "a"})
	if err != nil || len(h.Versions) < 2 {
		t.Fatalf("history: %+v %v", h, err)
	}
	oldest, newest := h.Versions[len(h.Versions)-1], h.Versions[0]
	d, err := e.VersionDiff(ctx, api.VersionDiffRequest{Path: "a", From: oldest.Ref, To: newest.Ref})
	if err != nil || len(d.Files) != 1 || d.Files[0].Patch == "" {
		t.Fatalf("VersionDiff = %+v, %v", d, err)
	}
	for _, bad := range []api.VersionDiffRequest{
		{Path: "../x", From: oldest.Ref},
		{Path: "a", From: "ck1-abc"},
		{Path: "a", From: newest.Ref, To: oldest.Ref},
		{Path: "a", From: "@999999"},
	} {
		if _, err := e.VersionDiff(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("VersionDiff(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
}
