package drift

import (
	"context"
	"reflect"
	"testing"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

// sharedOf is each change's kind and shared_with, by path.
func sharedOf(cs []api.Change) map[string][]api.Party {
	m := map[string][]api.Party{}
	for _, c := range cs {
		m[c.Kind+" "+c.Path] = c.SharedWith
	}
	return m
}

func wantShared(t *testing.T, what string, got []api.Change, want map[string][]api.Party) {
	t.Helper()
	if g := sharedOf(got); !reflect.DeepEqual(g, want) {
		t.Fatalf("%s: changes and shared_with\n  got  %+v\n  want %+v", what, g, want)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestWindowSharedWithAnotherSessionsRun: a tool window open while another
// session starts a run reports the change made meanwhile (it used to go to
// the newer run alone), shared with that run; the run reports it shared
// with the window; and both hold after the workspace is reopened.
func TestWindowSharedWithAnotherSessionsRun(t *testing.T) {
	ctx := context.Background()
	state, root := t.TempDir(), t.TempDir()
	write(t, root, "f", "v1")
	write(t, root, "g", "v1")
	open := func() (*Engine, *snapshot.Workspace) {
		ws, err := snapshot.Open(state, root, snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := &watcher.Walker{Root: root, Ignorer: watcher.NewIgnorer(root, nil)}
		if _, _, err := ws.Import(ctx, w.Walk); err != nil {
			t.Fatal(err)
		}
		return New(ws, Options{Sync: func(ctx context.Context) error { return ws.Reconcile(ctx, w.Walk) }}), ws
	}
	e, ws := open()
	must[api.RunStart](t)(e.RunStart(ctx, "s1", "r1"))
	c1 := api.ToolRequest{Session: "s1", Run: "r1", Call: "c1"}
	must[api.Checkpoint](t)(e.ToolStart(ctx, c1))
	must[api.RunStart](t)(e.RunStart(ctx, "s2", "r2"))
	write(t, root, "f", "v2")
	te := must[api.ToolEnd](t)(e.ToolEnd(ctx, c1))
	window := api.Party{SessionID: "s1", RunID: "r1", ToolCallID: "c1"}
	run2 := api.Party{SessionID: "s2", RunID: "r2"}
	wantShared(t, "tool end c1", te.Changes, map[string][]api.Party{"modified f": {run2}})

	// After the window closed, r2 changes g alone (r1 is open, without a window).
	write(t, root, "g", "v2")
	end2 := must[api.RunEnd](t)(e.RunEnd(ctx, "s2", "r2"))
	run1 := api.Party{SessionID: "s1", RunID: "r1"}
	wantShared(t, "run end r2", end2.Files, map[string][]api.Party{"modified f": {window}, "modified g": {run1}})
	end1 := must[api.RunEnd](t)(e.RunEnd(ctx, "s1", "r1"))
	wantShared(t, "run end r1", end1.Files, map[string][]api.Party{"modified f": {run2}, "modified g": {run2}})

	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	e, ws = open()
	defer ws.Close()
	wantShared(t, "tool end c1 after reopening", must[api.ToolEnd](t)(e.ToolEnd(ctx, c1)).Changes, map[string][]api.Party{"modified f": {run2}})
	d := must[api.RunDiff](t)(e.RunDiff(ctx, api.RunRequest{Session: "s2", Run: "r2"}))
	wantShared(t, "run diff r2 after reopening", d.Files, map[string][]api.Party{"modified f": {window}, "modified g": {run1}})
}

// TestOverlappingWindowsOfOneRun: two windows of one run open at once
// both report what changed while both were open, each shared with the
// other; what changed while only one was open is that one's alone; the
// run's own windows are not "others" to it.
func TestOverlappingWindowsOfOneRun(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"f": "1", "g": "1", "h": "1"})
	must[api.RunStart](t)(e.RunStart(ctx, "s", "r"))
	c1 := api.ToolRequest{Session: "s", Run: "r", Call: "c1"}
	c2 := api.ToolRequest{Session: "s", Run: "r", Call: "c2"}
	must[api.Checkpoint](t)(e.ToolStart(ctx, c1))
	write(t, root, "h", "c1 alone")
	e.Sync(ctx)
	must[api.Checkpoint](t)(e.ToolStart(ctx, c2))
	write(t, root, "f", "both")
	wantShared(t, "tool end c1", must[api.ToolEnd](t)(e.ToolEnd(ctx, c1)).Changes, map[string][]api.Party{
		"modified h": nil,
		"modified f": {{SessionID: "s", RunID: "r", ToolCallID: "c2"}},
	})
	write(t, root, "g", "c2 alone")
	wantShared(t, "tool end c2", must[api.ToolEnd](t)(e.ToolEnd(ctx, c2)).Changes, map[string][]api.Party{
		"modified f": {{SessionID: "s", RunID: "r", ToolCallID: "c1"}},
		"modified g": nil,
	})
	wantShared(t, "run end", must[api.RunEnd](t)(e.RunEnd(ctx, "s", "r")).Files, map[string][]api.Party{
		"modified f": nil, "modified g": nil, "modified h": nil,
	})
}

// TestSequentialWindowsShareNothing: windows one after another report
// exactly their own changes, none shared; a change between them is none's.
func TestSequentialWindowsShareNothing(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "1", "b": "1"})
	must[api.RunStart](t)(e.RunStart(ctx, "s", "r"))
	for _, step := range []struct{ call, path string }{{"c1", "a"}, {"c2", "b"}} {
		req := api.ToolRequest{Session: "s", Run: "r", Call: step.call}
		must[api.Checkpoint](t)(e.ToolStart(ctx, req))
		write(t, root, step.path, "by "+step.call)
		wantShared(t, "tool end "+step.call, must[api.ToolEnd](t)(e.ToolEnd(ctx, req)).Changes, map[string][]api.Party{"modified " + step.path: nil})
		write(t, root, "between", step.call)
		e.Sync(ctx)
	}
	// Another session's window while the first run is open (between its
	// windows): the change is shared with that run.
	must[api.RunStart](t)(e.RunStart(ctx, "s2", "r2"))
	x := api.ToolRequest{Session: "s2", Run: "r2", Call: "x"}
	must[api.Checkpoint](t)(e.ToolStart(ctx, x))
	write(t, root, "a", "by x")
	wantShared(t, "tool end x", must[api.ToolEnd](t)(e.ToolEnd(ctx, x)).Changes, map[string][]api.Party{
		"modified a": {{SessionID: "s", RunID: "r"}},
	})
}

// TestWindowEndsWithItsRun: a window still open when its run ends stops
// there; what changes after the run is not the window's.
func TestWindowEndsWithItsRun(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "1", "b": "1"})
	must[api.RunStart](t)(e.RunStart(ctx, "s", "r"))
	c := api.ToolRequest{Session: "s", Run: "r", Call: "c"}
	must[api.Checkpoint](t)(e.ToolStart(ctx, c))
	write(t, root, "a", "in the window")
	must[api.RunEnd](t)(e.RunEnd(ctx, "s", "r"))
	write(t, root, "b", "the person, after the run")
	wantShared(t, "tool end after the run ended", must[api.ToolEnd](t)(e.ToolEnd(ctx, c)).Changes, map[string][]api.Party{"modified a": nil})
}
