package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// sourceLike is a Go-like source file of about n bytes, different per
// seed, that zstd shrinks (as a source tree's files).
func sourceLike(seed, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Copyright 2026 The ckpt Authors.\n\npackage p%d\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n", seed%7)
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "func (w *writer%d) put%d(ctx context.Context, seq uint64) error {\n\tif err := ctx.Err(); err != nil {\n\t\treturn fmt.Errorf(\"put %x: %%w\", err)\n\t}\n\treturn nil\n}\n\n", seed, i, rng.Uint64())
	}
	return b.String()
}

// maintainedLines is how many idle maintenances the daemon's log records.
func (ws *workspace) maintainedLines() int {
	b, _ := os.ReadFile(ws.daemon.log)
	return strings.Count(string(b), "idle maintenance:")
}

// TestDaemonMaintainsWhenIdle: with no run open and the store idle a while
// (2 s here, CKPT_TEST_IDLE_MAINTAIN), the daemon rewrites what its
// captures stored in the final encoding and gives the replaced space back
// while it runs, as ckpt gc does; never while a run is open; and every
// version still restores byte for byte afterwards.
func TestDaemonMaintainsWhenIdle(t *testing.T) {
	ws := newWorkspace(t, daemon, "CKPT_TEST_IDLE_MAINTAIN=2s")
	ws.start()
	ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
	first, second := map[string]string{}, map[string]string{}
	for i := range 400 {
		rel := fmt.Sprintf("src/p%02d/f%03d.go", i%20, i)
		first[rel] = sourceLike(i, 8000)
		ws.write(rel, first[rel])
	}
	var cp1 checkpointJSON
	ws.ckptJSON(&cp1, "checkpoint", "-m", "the files")
	for rel := range first {
		second[rel] = sourceLike(1000+len(second), 6000)
		ws.write(rel, second[rel])
	}
	var cp2 checkpointJSON
	ws.ckptJSON(&cp2, "checkpoint", "-m", "rewritten")
	time.Sleep(8 * time.Second) // four times the idle time, the run open
	if n := ws.maintainedLines(); n != 0 {
		t.Fatalf("the daemon maintained the store %d times while a run was open%s", n, ws.daemonLog())
	}
	ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
	before := storeDU(t, ws.state)
	for deadline := time.Now().Add(60 * time.Second); ws.maintainedLines() == 0; time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no idle maintenance 60 s after the run ended%s", ws.daemonLog())
		}
	}
	after := storeDU(t, ws.state)
	t.Logf("state directory: %d bytes before the idle maintenance, %d after", before, after)
	// What the value-log GC wrote to the memtable is flushed too.
	if n := memLogUsage(t, ws.state); n > 8<<10 {
		t.Errorf("the memtable logs take %d bytes after the idle maintenance: want them flushed", n)
	}
	if after >= before {
		t.Fatalf("the state directory takes %d bytes after the idle maintenance, %d before: want less%s", after, before, ws.daemonLog())
	}
	for _, v := range []struct {
		id   string
		want map[string]string
	}{{cp1.CheckpointID, first}, {cp2.CheckpointID, second}} {
		ws.ckptOK("restore", v.id, "--exact", "--yes")
		for rel, content := range v.want {
			if got := ws.read(rel); got != content {
				t.Fatalf("%s: restored %d bytes from %s after the idle maintenance, want %d", rel, len(got), v.id, len(content))
			}
		}
	}
}
