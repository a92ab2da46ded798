package watcher

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Reconfigure with new ignore rules re-walks: a path now ignored leaves the
// sink, one no longer ignored is captured, and later events follow the new
// rules.
func TestReconfigureIgnorer(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.log", "a\n")
	write("b.txt", "b\n")
	h := start(t, root, Options{})
	h.check("at start")

	h.w.Reconfigure(Settings{Ignorer: NewIgnorer(root, []string{"*.log"}), Debounce: 5 * time.Millisecond})
	write("c.log", "c\n")
	write("d.txt", "d\n")
	h.sync()
	got := h.sink.snapshot()
	for _, p := range []string{"a.log", "c.log"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s is in the sink after *.log became ignored", p)
		}
	}
	for _, p := range []string{"b.txt", "d.txt"} {
		if _, ok := got[p]; !ok {
			t.Errorf("%s is missing from the sink", p)
		}
	}
	if h.w.opts.Debounce != 5*time.Millisecond || h.w.pending.debounce != 5*time.Millisecond {
		t.Errorf("debounce %s/%s, want 5ms", h.w.opts.Debounce, h.w.pending.debounce)
	}

	h.w.Reconfigure(Settings{Ignorer: NewIgnorer(root, nil)})
	h.check("after the rules were dropped again")
}
