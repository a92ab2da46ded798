package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// memLogUsage is what du counts for the store's memtable logs (.mem).
func memLogUsage(t *testing.T, state string) int64 {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(state, "workspaces", "*", "db", "*.mem"))
	var n int64
	for _, l := range logs {
		n += storeDU(t, l)
	}
	return n
}

// TestDaemonFlushesWhenIdle: what a running daemon records goes first to
// its memtable's log, uncompressed; once the store has been idle for 10
// seconds the daemon flushes it into the LSM tree, and the log's space
// goes while the daemon runs; everything it recorded still restores.
func TestDaemonFlushesWhenIdle(t *testing.T) {
	ws := newWorkspace(t, daemon)
	ws.start()
	want := map[string]string{}
	for i := range 1500 {
		rel := fmt.Sprintf("src/p%02d/f%04d.go", i%30, i)
		want[rel] = fmt.Sprintf("// file %d\n%x\n", i, incompressible(uint64(i), 600))
		ws.write(rel, want[rel])
	}
	var cp checkpointJSON
	ws.ckptJSON(&cp, "checkpoint", "-m", "the files")
	busy := memLogUsage(t, ws.state)
	if busy < 256<<10 {
		t.Fatalf("the memtable logs take %d bytes after 1,500 files were recorded: want them holding the records", busy)
	}
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if n := memLogUsage(t, ws.state); n*8 < busy {
			t.Logf("memtable logs: %d bytes after the checkpoint, %d once idle", busy, n)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the memtable logs still take %d bytes (%d after the checkpoint) 40s later%s", memLogUsage(t, ws.state), busy, ws.daemonLog())
		}
	}
	ws.restoresExactly(cp.CheckpointID, want, "after the flush")
}

// restoresExactly edits every path of want, checkpoints the edits, and
// restores id with --exact: every path must then hold want's content.
func (w *workspace) restoresExactly(id string, want map[string]string, when string) {
	w.t.Helper()
	for rel := range want {
		w.write(rel, "edited\n")
	}
	w.ckptOK("checkpoint", "-m", "edits")
	w.ckptOK("restore", id, "--exact", "--yes")
	for rel, content := range want {
		if got := w.read(rel); got != content {
			w.t.Fatalf("%s: the restore of %s %s gave %d bytes, want the %d checkpointed", rel, id, when, len(got), len(content))
		}
	}
}
