package watcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTooDeepLastError: a directory whose path is longer than PATH_MAX,
// created while the watcher runs, cannot be watched or listed by its
// path; LastError is the fallback to full re-walks that says so, not the
// failed open of that path.
func TestTooDeepLastError(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "a")
	h := start(t, root, Options{})
	parts := make([]string, 20)
	for i := range parts {
		parts[i] = strings.Repeat("d", 250)
	}
	r, err := os.OpenRoot(root)
	must(t, err)
	defer r.Close()
	deep := filepath.Join(parts...)
	must(t, r.MkdirAll(deep, 0o755))
	must(t, r.WriteFile(filepath.Join(deep, "f.txt"), []byte("deep"), 0o644))
	h.sync()
	h.sync()
	if st := h.w.Stats(); !strings.Contains(st.LastError, "longer than PATH_MAX") || !strings.Contains(st.LastError, "full re-walks") {
		t.Fatalf("LastError = %.300q, want the fallback to full re-walks", st.LastError)
	}
}
