package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// A directory reached through a symlink that leaves the workspace is not
// opened: its files fail to open as they do through the workspace's root.
func TestDirCacheStaysInTheWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "a/b"), 0o755))
	must(os.WriteFile(filepath.Join(ws, "a/b/f"), []byte("in"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "top"), []byte("top"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("out"), 0o644))
	must(os.Symlink(outside, filepath.Join(ws, "a/out")))
	root, err := os.OpenRoot(ws)
	must(err)
	defer root.Close()
	d := dirCache{root: root}
	defer d.close()

	for _, tc := range []struct{ path, want string }{
		{"a/b/f", "in"}, {"top", "top"}, {"a/b/f", "in"},
	} {
		r, name := d.lookup(tc.path)
		b, err := r.ReadFile(name)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.path, b, err, tc.want)
		}
	}
	r, name := d.lookup("a/out/secret")
	if r != root || name != "a/out/secret" {
		t.Errorf("a/out/secret: looked up as %q under %v, want the workspace root", name, r.Name())
	}
	if b, err := r.ReadFile(name); err == nil {
		t.Errorf("read %q from outside the workspace", b)
	}
}
