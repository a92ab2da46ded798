package e2e

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// recordingProxy listens on a socket of its own and forwards every request
// to the daemon's socket, noting each request's path.
type recordingProxy struct {
	sock  string
	mu    sync.Mutex
	paths []string
}

func startRecordingProxy(t *testing.T, daemonSock string) *recordingProxy {
	t.Helper()
	dir, err := os.MkdirTemp("", "ckpt-e2e-proxy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &recordingProxy{sock: filepath.Join(dir, "proxy.sock")}
	ln, err := net.Listen("unix", p.sock)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: "ckptd"})
	rp.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", daemonSock)
	}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.paths = append(p.paths, r.URL.Path)
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

// take returns the paths requested since the last take.
func (p *recordingProxy) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.paths
	p.paths = nil
	return out
}

// TestStatusAsksTheDaemonOnce: with a daemon that serves the workspace, a
// status is one request (the status itself, no health question first).
// When the daemon does not serve the workspace, the command goes on as if
// it had asked: the health question, then (autostart off) the status
// without the daemon; a stale socket is no daemon at all.
func TestStatusAsksTheDaemonOnce(t *testing.T) {
	ws := newWorkspace(t, daemon)
	ws.write("a.txt", "a\n")
	ws.start()
	p := startRecordingProxy(t, filepath.Join(ws.state, "ckptd.sock"))
	via := []string{"CKPT_SOCKET=" + p.sock}

	ws.write("b.txt", "b\n")
	var s struct {
		Daemon struct {
			Running bool `json:"running"`
		} `json:"daemon"`
		Changes []change `json:"changes"`
	}
	r := ws.ckptEnv(via, "status", "--json")
	if r.code != 0 || decodeOne(r.stdout, &s) != nil {
		t.Fatalf("status through the proxy:\n%s", r)
	}
	if got := p.take(); len(got) != 1 || got[0] != "/v1/status" {
		t.Errorf("status asked the daemon %q, want only /v1/status", got)
	}
	if !s.Daemon.Running {
		t.Errorf("status through the daemon: daemon not running")
	}
	assertChanges(t, "status", s.Changes, want("added b.txt"))
	if r := ws.ckptEnv(via, "status", "--rescan"); r.code != 0 {
		t.Fatalf("status --rescan:\n%s", r)
	}
	if got := p.take(); len(got) < 3 || got[0] != "/v1/health" {
		t.Errorf("status --rescan asked %q, want the health question first, then the rescan and the status", got)
	}

	// A workspace the daemon does not serve, autostart off: as before, the
	// health question, then the status without the daemon.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "c.txt"), []byte("c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Daemon.Running = true
	r = ws.ckptEnv(via, "-C", other, "status", "--json")
	if r.code != 0 || decodeOne(r.stdout, &s) != nil {
		t.Fatalf("status of a workspace the daemon does not serve:\n%s", r)
	}
	if got := p.take(); len(got) < 2 || got[0] != "/v1/status" || got[1] != "/v1/health" {
		t.Errorf("status of a workspace not served asked %q, want /v1/status, then /v1/health", got)
	}
	if s.Daemon.Running {
		t.Errorf("status of a workspace the daemon does not serve says the daemon answers it")
	}

	// A stale socket: nothing listens.
	stale := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	r = ws.ckptEnv([]string{"CKPT_SOCKET=" + stale}, "-C", other, "status", "--json")
	if r.code != 0 || decodeOne(r.stdout, &s) != nil || s.Daemon.Running {
		t.Errorf("status with a stale socket: want the status without a daemon\n%s", r)
	}
}
