package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
)

// serveHTTP serves h with net/http on a new socket and returns its path
// and a count of the connections accepted.
func serveHTTP(t *testing.T, idle time.Duration, h http.HandlerFunc) (string, *atomic.Int64) {
	t.Helper()
	dir, err := os.MkdirTemp("", "ckw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	srv := &http.Server{Handler: h, IdleTimeout: idle, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return socket, &conns
}

// TestWireFramesEveryAnswer: answers with a length, chunked (a large one,
// and one flushed in pieces), closed after the body, and error answers all
// read as net/http's client read them, on one reused connection where the
// server keeps it.
func TestWireFramesEveryAnswer(t *testing.T) {
	big := strings.Repeat("x", 200_000)
	socket, conns := serveHTTP(t, 0, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(api.VersionHeader, api.Version)
		switch r.URL.Path {
		case "/v1/health":
			fmt.Fprintf(w, `{"version":%q,"pid":7}`, r.URL.Query().Get("v"))
		case "/v1/status":
			if r.URL.Query().Get("workspace") != "/w s&x" {
				http.Error(w, `{"error":"bad workspace"}`, 400)
				return
			}
			fmt.Fprintf(w, `{"workspace":%q,"fingerprint":%q}`, "/w s&x", big)
		case "/v1/log":
			w.Header().Set("Connection", "close")
			fmt.Fprint(w, `{"checkpoints":[]}`)
		case "/v1/checkpoint":
			var b strings.Builder
			fmt.Fprintf(&b, "%d", r.ContentLength)
			w.(http.Flusher).Flush()
			fmt.Fprintf(w, `{"checkpoint_id":%q,`, b.String())
			w.(http.Flusher).Flush()
			fmt.Fprint(w, `"message":"m"}`)
		case "/v1/show":
			w.WriteHeader(409)
			fmt.Fprint(w, `{"error":"in the way"}`)
		default:
			http.NotFound(w, r)
		}
	})
	c, err := Dial(socket, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	w := c.Workspace("/w s&x")
	for range 2 {
		s, err := w.Status(ctx)
		if err != nil || s.Workspace != "/w s&x" || s.Fingerprint != big {
			t.Fatalf("status: %v, workspace %q, fingerprint of %d bytes", err, s.Workspace, len(s.Fingerprint))
		}
		cp, err := w.Checkpoint(ctx, "hello")
		if err != nil || cp.CheckpointID != fmt.Sprint(len(`{"message":"hello"}`)) {
			t.Fatalf("checkpoint (chunked): %+v, %v", cp, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 4 calls, want 1 (kept alive)", n)
	}
	if _, err := w.Log(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Log(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections after two answers with Connection: close, want 2 (the kept one, then a new one)", n)
	}
	_, err = w.Show(ctx, "x")
	if !errors.Is(err, fault.Conflict) || err.Error() != "in the way" {
		t.Errorf("409: %v, want the daemon's message as a conflict", err)
	}
	_, err = c.Workspace("/other").Status(ctx)
	if !errors.Is(err, api.ErrInvalid) || err.Error() != "bad workspace" {
		t.Errorf("400: %v, want the daemon's message as invalid", err)
	}
	_, err = c.Workspaces(ctx)
	if !errors.Is(err, fault.NotFound) {
		t.Errorf("404: %v, want NotFound", err)
	}
}

// TestWireRetriesAClosedIdleConnection: a connection the daemon closed
// while it was idle is not an error: the call goes out on a new one.
func TestWireRetriesAClosedIdleConnection(t *testing.T) {
	socket, conns := serveHTTP(t, 50*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{}`)
	})
	c, err := Dial(socket, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for i := range 3 {
		if _, err := c.Workspace("/w").Checkpoint(ctx, ""); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		time.Sleep(150 * time.Millisecond) // the server closes the idle connection
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// TestWireContextEndsTheCall: a daemon that does not answer holds a call
// only until its context ends.
func TestWireContextEndsTheCall(t *testing.T) {
	release := make(chan struct{})
	socket, _ := serveHTTP(t, 0, func(w http.ResponseWriter, r *http.Request) {
		<-release
	})
	defer close(release)
	c, err := Dial(socket, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Health(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("got %v after %v, want the context's deadline after ~100ms", err, time.Since(start))
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel2)
	if _, err := c.Health(ctx2); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
