package daemon

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

// GET /v1/workspaces lists the served workspaces with their files; DELETE
// forgets one: the ForgetFunc is called once, after which it is not served
// and not listed; forgetting it again, or one never served, is bad input.
func TestListAndForgetWorkspaces(t *testing.T) {
	root := newRoot(t, testTree{"a.txt": "a\n", "b.txt": "b\n"})
	var forgotten []string
	ts := startServer(t, ServerOptions{Forget: func(r string) error { forgotten = append(forgotten, r); return nil }})
	eng := openEngineWith(t, t.TempDir(), root, drift.Options{})
	if err := ts.Add(root, Served{Engine: eng}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	list, err := ts.client.Workspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Workspaces) != 1 || list.Workspaces[0].Root != root || list.Workspaces[0].State != api.StateReady || list.Workspaces[0].Files != 2 || list.Workspaces[0].LastChangeAt.IsZero() {
		t.Fatalf("GET /v1/workspaces = %+v, want %s ready with 2 files and a last change", list, root)
	}
	res, err := ts.client.ForgetWorkspace(ctx, root)
	if err != nil || res.Root != root || res.PID == 0 {
		t.Fatalf("forget = %+v, %v", res, err)
	}
	if len(forgotten) != 1 || forgotten[0] != root {
		t.Errorf("ForgetFunc calls: %v, want one for %s", forgotten, root)
	}
	if list, _ = ts.client.Workspaces(ctx); len(list.Workspaces) != 0 {
		t.Errorf("after forget: %+v", list)
	}
	if _, err := ts.client.Workspace(root).Status(ctx); err == nil {
		t.Error("a forgotten workspace is still served")
	}
	for _, r := range []string{root, "/nowhere", "relative"} {
		if _, err := ts.client.ForgetWorkspace(ctx, r); !errors.Is(err, api.ErrInvalid) {
			t.Errorf("forget %q: %v, want bad input", r, err)
		}
	}
	if len(forgotten) != 1 {
		t.Errorf("ForgetFunc called again: %v", forgotten)
	}
}

// Forget waits for the requests using the workspace's engine to finish
// before its ForgetFunc closes the store.
func TestForgetWaitsForRequestsInFlight(t *testing.T) {
	root := newRoot(t, testTree{"a.txt": "a\n"})
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	closed := make(chan struct{})
	ts := startServer(t, ServerOptions{Forget: func(string) error { close(closed); return nil }})
	eng := openEngineWith(t, t.TempDir(), root, drift.Options{Sync: func(ctx context.Context) error {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
		return nil
	}})
	if err := ts.Add(root, Served{Engine: eng}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ts.client.Workspace(root).Status(context.Background())
		done <- err
	}()
	<-entered
	forgot := make(chan error, 1)
	go func() { _, err := ts.Forget(root); forgot <- err }()
	select {
	case <-closed:
		t.Fatal("the store was closed under a request in flight")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the request in flight: %v", err)
	}
	if err := <-forgot; err != nil {
		t.Fatal(err)
	}
	<-closed
}
