package daemon

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

func TestMain(m *testing.M) {
	subscriberBuffer = 64
	os.Exit(m.Run())
}

// testTree is a fixture: path -> content.
type testTree map[string]string

func (tt testTree) write(t *testing.T, root string) {
	t.Helper()
	for p, content := range tt {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newRoot is a workspace directory holding tree, its path resolved as the
// CLI resolves workspaces.
func newRoot(t *testing.T, tree testTree) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tree.write(t, root)
	return root
}

// openEngine opens the workspace at root under stateDir, imports it, and
// returns an engine that syncs by scanning (as the embedded client does).
func openEngine(t *testing.T, stateDir, root string) *drift.Engine {
	t.Helper()
	return openEngineWith(t, stateDir, root, drift.Options{})
}

// openEngineWith is openEngine with these engine options (the scan is the
// Sync unless o has one).
func openEngineWith(t *testing.T, stateDir, root string, o drift.Options) *drift.Engine {
	t.Helper()
	e, err := openEngineErr(t, stateDir, root, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// openEngineErr is openEngine for other goroutines (an OpenFunc): it
// returns its error instead of failing the test.
func openEngineErr(t *testing.T, stateDir, root string, o drift.Options) (*drift.Engine, error) {
	ws, err := snapshot.Open(stateDir, root, snapshot.Options{LockTimeout: time.Second})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { ws.Close() })
	walker := &watcher.Walker{Root: root, Ignorer: watcher.NewIgnorer(root, nil)}
	if _, _, err := ws.Import(context.Background(), walker.Walk); err != nil {
		return nil, err
	}
	if o.Sync == nil {
		o.Sync = func(ctx context.Context) error { return ws.Reconcile(ctx, walker.Walk) }
	}
	return drift.New(ws, o), nil
}

// socketDir is a short temporary directory: socket paths are limited to
// 107 bytes, which t.TempDir's long names can exceed.
func socketDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ckt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// testServer is a Server listening on a real unix socket.
type testServer struct {
	*Server
	socket string
	client *client.Client
}

// startServer serves opts on a new socket; it is shut down when the test
// ends.
func startServer(t *testing.T, opts ServerOptions) *testServer {
	t.Helper()
	socket := filepath.Join(socketDir(t), "run", "ckptd.sock")
	ln, err := Listen(socket, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	srv := NewServer(opts)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	c, err := client.Dial(socket, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return &testServer{Server: srv, socket: socket, client: c}
}

// serveOne starts a server for one new workspace holding tree.
func serveOne(t *testing.T, tree testTree) (*testServer, string) {
	t.Helper()
	root := newRoot(t, tree)
	ts := startServer(t, ServerOptions{})
	eng := openEngineWith(t, t.TempDir(), root, drift.Options{Daemon: func() api.Daemon { return ts.DaemonInfo(root) }})
	if err := ts.Add(root, Served{Engine: eng}); err != nil {
		t.Fatal(err)
	}
	return ts, root
}

// rawCall makes a request without the typed client, to see the status,
// the headers and the body as sent.
func rawCall(t *testing.T, socket, method, target, body string) (*http.Response, string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}}
	defer hc.CloseIdleConnections()
	req, err := http.NewRequest(method, "http://ckptd"+target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func paths(changes []api.Change) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, c.Kind+":"+c.Path)
	}
	return out
}

// testLogger logs to the test's log, every level.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testLogWriter struct{ t testing.TB }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
