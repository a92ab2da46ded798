package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImportRecompressed: a first import stores its contents with the fast
// codec (S2) and leaves the recompress mark in the store's directory; a
// daemon rewrites them as zstd once it is ready (its log says so, and the
// mark goes), whether it made the import or an embedded ckpt did. Before
// and after, a restore of the initial checkpoint over edits of every file
// gives back each file byte for byte.
func TestImportRecompressed(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws, want := recompressWorkspace(t, m)
		initial := ws.initial()
		if m == embedded {
			if ws.recompressMark() == "" {
				t.Fatal("after an embedded first import the store has no recompress mark: its contents are not in the fast codec")
			}
			ws.assertRestoresInitial(initial, want, "before recompressing")
			ws.startDaemon() // recompresses what the embedded import stored
		}
		ws.waitRecompressed()
		ws.assertRestoresInitial(initial, want, "after recompressing")
	})
}

// TestGCRecompressesEmbeddedImport: without a daemon, nothing recompresses
// a first import's contents in the background; ckpt gc does (not
// --dry-run), and every file restores exactly after it.
func TestGCRecompressesEmbeddedImport(t *testing.T) {
	ws, want := recompressWorkspace(t, embedded)
	initial := ws.initial()
	ws.ckptOK("gc", "--dry-run")
	if ws.recompressMark() == "" {
		t.Fatal("ckpt gc --dry-run recompressed the first import's contents (or the import did not use the fast codec)")
	}
	ws.ckptOK("gc")
	if mark := ws.recompressMark(); mark != "" {
		t.Fatalf("after ckpt gc the store still has its recompress mark %s", mark)
	}
	ws.assertRestoresInitial(initial, want, "after ckpt gc recompressed")
}

// recompressWorkspace is a started workspace of 120 compressible Go files
// and a tiny one, and what they hold.
func recompressWorkspace(t *testing.T, m mode) (*workspace, map[string]string) {
	t.Helper()
	ws := newWorkspace(t, m)
	want := map[string]string{}
	for i := range 120 {
		var b strings.Builder
		for j := range 40 + i {
			fmt.Fprintf(&b, "func f%d_%d(x int) int { return x*%d + %d }\n", i, j, (j*7919)%1000, (i*j*104729)%997)
		}
		rel := fmt.Sprintf("src/p%d/f%03d.go", i%7, i)
		want[rel] = b.String()
		ws.write(rel, want[rel])
	}
	want["tiny"] = "x"
	ws.write("tiny", "x")
	ws.start()
	return ws, want
}

// recompressMark is the path of the store's recompress mark, or "".
func (ws *workspace) recompressMark() string {
	ws.t.Helper()
	marks, _ := filepath.Glob(filepath.Join(ws.state, "workspaces", "*", "recompress-pending"))
	if len(marks) > 1 {
		ws.t.Fatalf("recompress marks: %v", marks)
	}
	if len(marks) == 0 {
		return ""
	}
	return marks[0]
}

// waitRecompressed waits for the daemon to log that it recompressed the
// first import's contents, and for the mark to go.
func (ws *workspace) waitRecompressed() {
	ws.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		log, _ := os.ReadFile(ws.daemon.log)
		if strings.Contains(string(log), "recompressed the first import's contents") && ws.recompressMark() == "" {
			return
		}
		if time.Now().After(deadline) {
			ws.t.Fatalf("the daemon did not recompress the first import within 30s (mark %q)%s", ws.recompressMark(), ws.daemonLog())
		}
	}
}

// assertRestoresInitial edits every file, then restores the initial
// checkpoint and checks that the disk holds want again.
func (ws *workspace) assertRestoresInitial(initial string, want map[string]string, when string) {
	ws.t.Helper()
	for rel, content := range want {
		ws.write(rel, content+"// edited "+when+"\n")
	}
	ws.ckptOK("checkpoint", "-m", "edits "+when)
	var r map[string]any
	ws.ckptJSON(&r, "restore", initial, "--exact", "--yes")
	for rel, content := range want {
		if got := ws.read(rel); got != content {
			ws.t.Errorf("%s: %s, the restore of the initial checkpoint gave %d bytes, want the %d imported", rel, when, len(got), len(content))
		}
	}
}
