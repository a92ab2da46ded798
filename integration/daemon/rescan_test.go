package daemon

import (
	"context"
	"errors"
	"github.com/ckptdev/ckpt/drift"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
)

// TestRescanRoute: POST /v1/rescan runs the engine's Rescan before it
// answers, its error is the answer's, and another method is refused.
func TestRescanRoute(t *testing.T) {
	root := newRoot(t, testTree{"a.txt": "a\n"})
	ts := startServer(t, ServerOptions{})
	var calls atomic.Int32
	var fail atomic.Bool
	eng := openEngineWith(t, t.TempDir(), root, drift.Options{Rescan: func(context.Context) error {
		calls.Add(1)
		if fail.Load() {
			return errors.New("the walk failed")
		}
		return nil
	}})
	if err := ts.Add(root, Served{Engine: eng}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := ts.client.Workspace(root)
	if err := w.Rescan(ctx); err != nil || calls.Load() != 1 {
		t.Fatalf("Rescan: %v after %d calls of the rescanner, want nil after 1", err, calls.Load())
	}
	fail.Store(true)
	if err := w.Rescan(ctx); err == nil || calls.Load() != 2 {
		t.Fatalf("Rescan with a failing rescanner: %v after %d calls, want its error after 2", err, calls.Load())
	}
	resp, _ := rawCall(t, ts.socket, http.MethodGet, "/v1/rescan?"+url.Values{"workspace": {root}}.Encode(), "")
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/rescan: %d, want 405", resp.StatusCode)
	}
}
