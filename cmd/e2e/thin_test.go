package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without a daemon, ckpt runs the command in the ckptd beside it; with no
// ckptd there or on $PATH it says so in one line and exits 1, and a
// command that needs no engine still works.
func TestCkptWithoutCkptd(t *testing.T) {
	ws := newWorkspace(t, embedded)
	ws.write("a.txt", "a\n")
	alone := filepath.Join(ws.base, "alone")
	if err := os.MkdirAll(alone, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ckptBin)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(alone, "ckpt")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), ws.env...), "PATH=/nonexistent")
	r := runAs(t, nil, ws.root, env, bin, "status")
	if r.code != 1 || !strings.Contains(r.stderr, "needs ckptd (the engine) beside ckpt or on $PATH") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("ckpt without ckptd, no daemon: want exit 1 and one line:\n%s", r)
	}
	if r := runAs(t, nil, ws.root, env, bin, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "ckpt ") {
		t.Errorf("ckpt version without ckptd:\n%s", r)
	}
	// The real pair: ckptd beside ckpt answers, with ckpt's output.
	if out := ws.ckptOK("status"); !strings.Contains(out, "Daemon not running") || !strings.Contains(out, "(1 file)") {
		t.Errorf("ckpt status run by ckptd:\n%s", out)
	}
}
