package daemon

import (
	"context"
	"errors"
	"github.com/ckptdev/ckpt/integration/client"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestListenModes(t *testing.T) {
	ts := startServer(t, ServerOptions{}) // the socket's directory does not exist before
	fi, err := os.Lstat(ts.socket)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(ts.socket))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", di.Mode().Perm())
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	socket := filepath.Join(socketDir(t), "ckptd.sock")
	// A daemon killed with -9 leaves its socket file behind.
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	old.Close()
	if _, err := os.Lstat(socket); err != nil {
		t.Fatalf("the stale socket should exist: %v", err)
	}
	ln, err := Listen(socket, testLogger(t))
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer ln.Close()
	srv := NewServer(ServerOptions{})
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	c, err := client.Dial(socket, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Health(context.Background()); err != nil {
		t.Fatalf("health after replacing the stale socket: %v", err)
	}
}

func TestListenRefusesSecondDaemon(t *testing.T) {
	ts := startServer(t, ServerOptions{})
	if _, err := Listen(ts.socket, testLogger(t)); !errors.Is(err, ErrDaemonRunning) {
		t.Fatalf("second Listen: %v, want ErrDaemonRunning", err)
	}
	if _, err := ts.client.Health(context.Background()); err != nil {
		t.Fatalf("the first daemon stopped answering: %v", err)
	}
}

func TestListenKeepsOtherFiles(t *testing.T) {
	path := filepath.Join(socketDir(t), "ckptd.sock")
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path, testLogger(t)); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("Listen over a regular file: %v, want a refusal", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "mine" {
		t.Fatalf("the file was touched: %q, %v", b, err)
	}
}

func TestListenTooLongPath(t *testing.T) {
	path := "/tmp/" + strings.Repeat("x", maxSocketPath)
	if _, err := Listen(path, testLogger(t)); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("Listen on a %d-byte path: %v", len(path), err)
	}
}

// TestPeerUIDChecked makes the listener expect another uid: the daemon's
// own connections are then refused, as another user's would be.
func TestPeerUIDChecked(t *testing.T) {
	socket := filepath.Join(socketDir(t), "ckptd.sock")
	refused := make(chan string, 10)
	ln, err := Listen(socket, slog.New(slog.NewTextHandler(chanWriter(refused), nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*peerListener).uid = os.Getuid() + 1
	srv := NewServer(ServerOptions{})
	go srv.Serve(ln)
	c, err := client.Dial(socket, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Health(context.Background()); err == nil {
		t.Fatal("a connection from the wrong uid was answered")
	}
	defer srv.Shutdown(context.Background())
	select {
	case msg := <-refused:
		if !strings.Contains(msg, "refused") || !strings.Contains(msg, "level=WARN") {
			t.Errorf("logged %q", msg)
		}
	case <-time.After(5 * time.Second):
		t.Error("the refusal was not logged")
	}
}

// chanWriter sends each log line to the channel, dropping it when full.
type chanWriter chan string

func (c chanWriter) Write(p []byte) (int, error) {
	select {
	case c <- string(p):
	default:
	}
	return len(p), nil
}
