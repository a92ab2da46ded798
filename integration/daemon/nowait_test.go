package daemon

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
)

// TestNoWaitWhileOpening: a request with Ckpt-Wait: never for a workspace
// being opened is answered at once with 503 and the state "opening" (the
// client reads it as *api.NotOpenError); one without it waits, and both
// are answered once the workspace is open.
func TestNoWaitWhileOpening(t *testing.T) {
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
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := ts.client.Workspace(root).ToolStart(ctx, api.ToolRequest{Session: "s", Run: "r", Call: "c"})
		waiting <- err
	}()
	_, err := ts.client.Workspace(root).NoWait().ToolStart(ctx, api.ToolRequest{Session: "s", Run: "r", Call: "c"})
	var no *api.NotOpenError
	if !errors.As(err, &no) || no.State != api.StateOpening || no.Root != root || no.PID == 0 || !errors.Is(err, fault.Busy) {
		t.Fatalf("a request that does not wait, while opening: %v (%#v), want a NotOpenError in state opening", err, no)
	}
	select {
	case err := <-waiting:
		t.Fatalf("the request that waits was answered before the workspace was open: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	<-waiting // answered (a tool start outside a run is an error of its own, not the wait's)
	if _, err := ts.client.Workspace(root).NoWait().Status(ctx); err != nil {
		t.Errorf("a request that does not wait, once open: %v", err)
	}
}
