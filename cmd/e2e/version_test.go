package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClientWarnsOnceOfAnotherDaemonVersion: a ckpt talking to a ckptd of
// another version says so once per command, on stderr, and still answers
// (--json output stays one object). A daemon of its own version draws no
// warning.
func TestClientWarnsOnceOfAnotherDaemonVersion(t *testing.T) {
	requireDaemon(t)
	module, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	const other = "0.0.0-other"
	bin := filepath.Join(t.TempDir(), "ckptd")
	if out, err := goCommand(module, "build", "-o", bin,
		"-ldflags=-X github.com/ckptdev/ckpt/integration/api.Version="+other, "./cmd/ckptd"); err != nil {
		t.Fatalf("build ckptd %s: %v\n%s", other, err, out)
	}

	same := newWorkspace(t, daemon)
	same.write("a.txt", "a\n")
	same.start()
	if r := same.ckptResult("status"); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Fatalf("same version: want no warning:\n%s", r)
	}
	same.stopDaemon()

	ws := newWorkspace(t, daemon)
	ws.write("a.txt", "a\n")
	saved := ckptdBin
	ckptdBin = bin
	ws.start()
	ckptdBin = saved
	for _, args := range [][]string{{"status"}, {"status", "--json"}, {"log"}} {
		r := ws.ckptResult(args...)
		if r.code != 0 {
			t.Fatalf("against ckptd %s:\n%s", other, r)
		}
		if n := strings.Count(r.stderr, "warning:"); n != 1 || !strings.Contains(r.stderr, "ckptd "+other) {
			t.Errorf("want one warning naming ckptd %s on stderr, got %d:\n%s", other, n, r)
		}
		if strings.Contains(r.stdout, "warning") {
			t.Errorf("the warning reached stdout:\n%s", r)
		}
	}
	var s statusJSON
	ws.ckptJSON(&s, "status", "--json")
	if !s.Daemon.Running {
		t.Errorf("status --json against ckptd %s: not served by the daemon", other)
	}
}
