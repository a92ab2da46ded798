package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDaemonSocketAndSecondWorkspace checks the daemon's side of CONTRACT:
// the socket is 0600 in a 0700 directory (semantic 10), and `ckptd watch`
// for another workspace while a daemon serves the socket adds it to that
// daemon and exits 0.
func TestDaemonSocketAndSecondWorkspace(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	ws.write("a.txt", "a\n")
	ws.start()
	sock := filepath.Join(ws.state, "ckptd.sock")
	info, err := os.Lstat(sock)
	if err != nil {
		t.Fatalf("the socket: %v", err)
	}
	if info.Mode().Type() != os.ModeSocket || info.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want a socket with 0600", sock, info.Mode())
	}
	if dir, err := os.Stat(filepath.Dir(sock)); err != nil || dir.Mode().Perm() != 0o700 {
		t.Errorf("%s: the socket's directory must be 0700: %v %v", filepath.Dir(sock), dir.Mode(), err)
	}

	second := filepath.Join(ws.base, "ws2")
	if err := os.MkdirAll(second, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(second, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, ws.root, ws.env, ckptdBin, "watch", second)
	if r.code != 0 {
		t.Fatalf("ckptd watch of a second workspace while a daemon serves the socket: want exit 0, got\n%s", r)
	}
	var s statusJSON
	r = run(t, second, ws.env, ckptBin, "status", "--json")
	if r.code != 0 || decodeOne(r.stdout, &s) != nil {
		t.Fatalf("ckpt status in the second workspace:\n%s", r)
	}
	if !s.Daemon.Running || s.Files != 1 {
		t.Errorf("the second workspace: daemon.running %v, files %d; want it served by the daemon, 1 file", s.Daemon.Running, s.Files)
	}
	if err := os.WriteFile(filepath.Join(second, "c.txt"), []byte("c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, second, ws.env, ckptBin, "status", "--json")
	if err := decodeOne(r.stdout, &s); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	assertChanges(t, "status of the second workspace after a write", s.Changes, want("added c.txt"))
	ws.status()
}
