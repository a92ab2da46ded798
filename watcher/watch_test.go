package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// noRewalks fails the test if anything but the initial walk ran: the
// events alone must have been enough.
func noRewalks(t *testing.T, h *harness) {
	t.Helper()
	if st := h.w.Stats(); st.Rewalks != 1 || st.Overflows != 0 {
		t.Errorf("stats %+v: want only the initial walk, no overflow", st)
	}
}

func TestFileOperations(t *testing.T) {
	steps := []struct {
		name string
		do   func(t *testing.T, root string)
	}{
		{"create", func(t *testing.T, root string) {
			writeFile(t, root, "a.txt", "a")
			writeFile(t, root, "dir/b.txt", "b")
		}},
		{"modify", func(t *testing.T, root string) {
			writeFile(t, root, "a.txt", "a2")
			f, err := os.OpenFile(filepath.Join(root, "dir/b.txt"), os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteString("more")
			must(t, err)
			must(t, f.Close())
		}},
		{"chmod", func(t *testing.T, root string) {
			must(t, os.Chmod(filepath.Join(root, "a.txt"), 0o755))
		}},
		{"symlink", func(t *testing.T, root string) {
			must(t, os.Symlink("a.txt", filepath.Join(root, "link")))
			must(t, os.Symlink("dir", filepath.Join(root, "dirlink")))
		}},
		{"rename file", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "a.txt"), filepath.Join(root, "dir/c.txt")))
		}},
		{"atomic replace", func(t *testing.T, root string) {
			writeFile(t, root, "dir/.b.txt.tmp", "replaced")
			must(t, os.Rename(filepath.Join(root, "dir/.b.txt.tmp"), filepath.Join(root, "dir/b.txt")))
		}},
		{"retarget symlink", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "link")))
			must(t, os.Symlink("dir/c.txt", filepath.Join(root, "link")))
		}},
		{"delete", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "dir/c.txt")))
			must(t, os.Remove(filepath.Join(root, "dirlink")))
		}},
		{"file replaces directory", func(t *testing.T, root string) {
			must(t, os.RemoveAll(filepath.Join(root, "dir")))
			writeFile(t, root, "dir", "now a file")
		}},
		{"directory replaces file", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "dir")))
			writeFile(t, root, "dir/x/y", "y")
		}},
		{"internal names are skipped", func(t *testing.T, root string) {
			writeFile(t, root, InternalPrefix+"tmp", "x")
			writeFile(t, root, "dir/"+InternalPrefix+"restore", "x")
			writeFile(t, root, ".git/HEAD", "ref: refs/heads/main\n")
		}},
	}
	root := t.TempDir()
	writeFile(t, root, "pre-existing", "before the daemon")
	h := start(t, root, Options{})
	h.check("initial")
	for _, s := range steps {
		s.do(t, root)
		h.check(s.name)
	}
	noRewalks(t, h)
}

// TestMkdirBursts is the Watchman lesson: files created in directories
// before their watch exists are found by listing them after the watch.
func TestMkdirBursts(t *testing.T) {
	root := t.TempDir()
	h := start(t, root, Options{})
	for i := range 200 {
		dir := filepath.Join(root, fmt.Sprintf("burst%03d", i), "a", "b", "c")
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "..", "g"), []byte("y"), 0o644))
		if i%50 == 49 {
			h.check(fmt.Sprintf("after %d bursts", i+1))
		}
	}
	h.check("after all bursts")
	noRewalks(t, h)
	if got, want := h.w.Stats().WatchedDirs, 1+200*4; got != want {
		t.Errorf("WatchedDirs = %d, want %d", got, want)
	}
}

// TestStorm creates ~5000 files in new nested directories and deletes
// whole subtrees while they are being watched.
func TestStorm(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		writeFile(t, root, fmt.Sprintf("old%d/sub/f", i), "old")
	}
	h := start(t, root, Options{})
	for i := range 20 {
		for j := range 10 {
			dir := filepath.Join(root, fmt.Sprintf("storm%02d/d%d/e", i, j))
			must(t, os.MkdirAll(dir, 0o755))
			for k := range 25 {
				must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", k)), []byte{byte(k)}, 0o644))
			}
		}
		if i%4 == 3 {
			must(t, os.RemoveAll(filepath.Join(root, fmt.Sprintf("storm%02d", i-1))))
		}
	}
	for i := range 5 {
		must(t, os.RemoveAll(filepath.Join(root, fmt.Sprintf("old%d", i))))
	}
	h.check("after the storm")
	t.Logf("stats: %+v", h.w.Stats())
}

// TestOverflow forces the in-process queue to overflow: the watcher must
// re-walk, count it, and still end up exact.
func TestOverflow(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "gone/f", "x")
	h := start(t, root, Options{QueueSize: 4})
	// A fast drain may keep up with one burst: burst until the queue
	// overflows (a few rounds at most, on any machine seen).
	for round := 0; round < 20 && h.w.Stats().Overflows == 0; round++ {
		for i := range 300 {
			writeFile(t, root, fmt.Sprintf("d%d/f%d-%d", i%7, round, i), "x")
		}
	}
	must(t, os.RemoveAll(filepath.Join(root, "gone")))
	h.check("after overflow")
	st := h.w.Stats()
	if st.Overflows == 0 || st.Rewalks < 2 {
		t.Fatalf("stats %+v: want an overflow and a re-walk", st)
	}
	// Watches are right after the re-walk: later changes are events again.
	writeFile(t, root, "d3/new", "new")
	must(t, os.Remove(filepath.Join(root, "d4/f0-4")))
	h.check("after re-walk")
}

// TestDirectoryRename moves directories into, within and out of the tree,
// then writes through the new paths: watches must follow.
func TestDirectoryRename(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFile(t, root, "a/sub/deep/f", "f")
	writeFile(t, root, "a/g", "g")
	writeFile(t, outside, "ext/sub/h", "h")
	h := start(t, root, Options{})

	must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")))
	h.check("rename within")
	writeFile(t, root, "b/sub/deep/f", "f2")
	writeFile(t, root, "b/sub/deep/new", "n")
	writeFile(t, root, "b/sub/deeper/x", "x")
	h.check("writes below the renamed directory")

	must(t, os.Rename(filepath.Join(outside, "ext"), filepath.Join(root, "b/sub/ext")))
	h.check("move in")
	writeFile(t, root, "b/sub/ext/sub/h2", "h2")
	h.check("write below the moved-in directory")

	must(t, os.Rename(filepath.Join(root, "b/sub"), filepath.Join(outside, "out")))
	h.check("move out")
	writeFile(t, outside, "out/deep/ignored-now", "z")
	h.check("write below the moved-out directory")

	// Swap through a temporary name, as some tools do.
	writeFile(t, root, "c/f", "c")
	must(t, os.Rename(filepath.Join(root, "b"), filepath.Join(root, "tmp")))
	must(t, os.Rename(filepath.Join(root, "c"), filepath.Join(root, "b")))
	must(t, os.Rename(filepath.Join(root, "tmp"), filepath.Join(root, "c")))
	writeFile(t, root, "b/f2", "b")
	writeFile(t, root, "c/f3", "c")
	h.check("swap")
	noRewalks(t, h)
	if got, want := h.w.Stats().WatchedDirs, 3; got != want {
		t.Errorf("WatchedDirs = %d, want %d (root, b, c)", got, want)
	}
}
