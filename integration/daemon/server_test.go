package daemon

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

func TestHealth(t *testing.T) {
	root := newRoot(t, testTree{"a": "a"})
	ts := startServer(t, ServerOptions{})
	stats := api.WatcherStats{Ready: true, WatchedDirs: 3, QueueDepth: 1, Overflows: 2, Rewalks: 4, Events: 9, LastError: "boom"}
	eng := openEngineWith(t, t.TempDir(), root, drift.Options{Daemon: func() api.Daemon { return ts.DaemonInfo(root) }})
	if err := ts.Add(root, Served{Engine: eng, Stats: func() api.WatcherStats { return stats }}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := ts.client.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != api.Version || h.PID != os.Getpid() || h.StartedAt.IsZero() {
		t.Errorf("health %+v", h)
	}
	if len(h.Workspaces) != 1 || h.Workspaces[0].Root != root || h.Workspaces[0].State != api.StateReady ||
		h.Workspaces[0].Watcher == nil || *h.Workspaces[0].Watcher != stats {
		t.Fatalf("workspaces %+v", h.Workspaces)
	}
	if !h.Serves(root) || h.Serves("/other") {
		t.Errorf("Serves is wrong")
	}
	// Status shows the watcher through the engine's Daemon.
	st, err := ts.client.Workspace(root).Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := st.Daemon
	if !d.Running || d.Version != api.Version || d.WatchedDirs != 3 || d.QueueDepth != 1 || d.Overflows != 2 ||
		d.Rewalks != 4 || d.LastError != "boom" || len(d.Workspaces) != 1 || d.StoreBytes == 0 {
		t.Errorf("status daemon %+v", d)
	}
	if err := ts.Add(root, Served{Engine: openEngine(t, t.TempDir(), newRoot(t, nil))}); err == nil {
		t.Error("adding a served root twice was accepted")
	}
}

func TestAddWorkspaces(t *testing.T) {
	stateDir := t.TempDir()
	failing := newRoot(t, nil)
	ts := startServer(t, ServerOptions{Open: func(ctx context.Context, root string) (Served, error) {
		if root == failing {
			return Served{}, errors.New("cannot open it")
		}
		e, err := openEngineErr(t, stateDir, root, drift.Options{})
		return Served{Engine: e}, err
	}})
	ctx := context.Background()
	r1, r2 := newRoot(t, testTree{"a": "a"}), newRoot(t, testTree{"b": "b"})

	res, err := ts.client.AddWorkspaces(ctx, []string{r1, r2})
	if err != nil || len(res.Workspaces) != 2 || !res.Workspaces[0].Added || !res.Workspaces[1].Added {
		t.Fatalf("add: %+v, %v", res, err)
	}
	res, err = ts.client.AddWorkspaces(ctx, []string{r1})
	if err != nil || len(res.Workspaces) != 1 || res.Workspaces[0].Added {
		t.Fatalf("adding again: %+v, %v", res, err)
	}
	h, err := ts.client.Health(ctx)
	if err != nil || !h.Serves(r1) || !h.Serves(r2) {
		t.Fatalf("health after adding: %+v, %v", h, err)
	}
	if st, err := ts.client.Workspace(r2).Status(ctx); err != nil || st.Files != 1 {
		t.Fatalf("status of an added workspace: %+v, %v", st, err)
	}

	if _, err := ts.client.AddWorkspaces(ctx, []string{"relative"}); !errors.Is(err, drift.ErrInvalid) {
		t.Errorf("adding a relative path: %v, want drift.ErrInvalid", err)
	}
	if _, err := ts.client.AddWorkspaces(ctx, []string{failing}); err == nil || errors.Is(err, drift.ErrInvalid) {
		t.Errorf("a failing open: %v, want a plain error", err)
	}
	if h, _ := ts.client.Health(ctx); h.Serves(failing) {
		t.Error("a workspace that failed to open is served")
	}

	plain := startServer(t, ServerOptions{})
	if _, err := plain.client.AddWorkspaces(ctx, []string{r1}); err == nil {
		t.Error("a server without Open added a workspace")
	}
}

// TestRequestWaitsForOpeningWorkspace: while a workspace is being opened
// (its first import), health lists it and its requests wait for it.
func TestRequestWaitsForOpeningWorkspace(t *testing.T) {
	root := newRoot(t, testTree{"a": "a"})
	release := make(chan struct{})
	ts := startServer(t, ServerOptions{Open: func(ctx context.Context, r string) (Served, error) {
		<-release
		e, err := openEngineErr(t, t.TempDir(), r, drift.Options{})
		return Served{Engine: e}, err
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	added := make(chan error, 1)
	go func() {
		_, err := ts.client.AddWorkspaces(ctx, []string{root})
		added <- err
	}()
	for {
		h, err := ts.client.Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if h.Serves(root) {
			if h.Workspaces[0].State != api.StateOpening {
				t.Fatalf("state %q while opening", h.Workspaces[0].State)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	status := make(chan error, 1)
	go func() {
		_, err := ts.client.Workspace(root).Status(ctx)
		status <- err
	}()
	select {
	case err := <-status:
		t.Fatalf("status answered before the workspace was open: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-status; err != nil {
		t.Fatalf("status once open: %v", err)
	}
	if err := <-added; err != nil {
		t.Fatal(err)
	}
}

func TestRemove(t *testing.T) {
	ts, root := serveOne(t, nil)
	es, err := ts.client.Events(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	ts.Remove(root)
	if _, err := es.Next(); err == nil {
		t.Error("the event stream of a removed workspace goes on")
	}
	if _, err := ts.client.Workspace(root).Status(context.Background()); err == nil {
		t.Error("a removed workspace is still served")
	}
}
