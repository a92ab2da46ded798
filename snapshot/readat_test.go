package snapshot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// TestImportReadAtRefusesSymlink: a first import's reader opens a file by
// its name in its open directory; when a symlink to a file outside the
// workspace took the file's place after the walk, the open refuses it,
// and the path is recorded as the symlink, nothing of its target stored.
func TestImportReadAtRefusesSymlink(t *testing.T) {
	root, state, outside := t.TempDir(), t.TempDir(), t.TempDir()
	ws, err := Open(state, root, Options{MaxFileSize: 50 << 20, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("outside the workspace"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"top.txt", "sub/dir/f.txt"} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("inside: "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wsRoot, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer wsRoot.Close()
	dirs := dirCache{root: wsRoot}
	defer dirs.closeAll()
	for _, p := range []string{"top.txt", "sub/dir/f.txt"} {
		full := filepath.Join(root, p)
		info, err := os.Lstat(full)
		if err != nil {
			t.Fatal(err)
		}
		// The file read as it was walked: its content, with the system calls.
		r, at, name := dirs.lookupAt(p)
		if at == nil {
			t.Fatalf("%s: no open directory to read it in", p)
		}
		o := ws.read(r, at, name, candidate{path: p, info: info, fast: true})
		if o.err != nil || o.state.Kind != store.File || o.state.Hash != store.HashBytes([]byte("inside: "+p)) {
			t.Fatalf("%s read as %+v (err %v)", p, o.state, o.err)
		}
		// Replaced by a symlink to a file outside, after the walk.
		if err := os.Remove(full); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret, full); err != nil {
			t.Fatal(err)
		}
		r, at, name = dirs.lookupAt(p)
		// Opened as the regular file the walk saw, the name is refused.
		if data, err := ws.readContentAt(at, r, name, statState(info), nil); err == nil {
			t.Errorf("%s, now a symlink, opened and read: %q", p, data.bytes)
		}
		o = ws.read(r, at, name, candidate{path: p, info: info, fast: true})
		if o.err != nil {
			t.Fatalf("%s: %v", p, o.err)
		}
		if o.state.Kind != store.Symlink || o.state.Hash != store.HashBytes([]byte(secret)) {
			t.Errorf("%s, now a symlink, recorded as %+v", p, o.state)
		}
		for _, c := range o.chunks {
			if bytes.Contains(c, []byte("outside the workspace")) {
				t.Errorf("%s: the symlink's target was read", p)
			}
		}
	}
}

// TestImportReadAtManyDirs: files read in turn from more directories than
// a reader keeps open each read as what they hold.
func TestImportReadAtManyDirs(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	ws, err := Open(state, root, Options{MaxFileSize: 50 << 20, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var paths []string
	for i := 0; i < 3*recentDirs; i++ {
		p := fmt.Sprintf("d%d/sub/f%d.txt", i%(recentDirs+3), i)
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	wsRoot, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer wsRoot.Close()
	dirs := dirCache{root: wsRoot}
	defer dirs.closeAll()
	for round := 0; round < 2; round++ {
		for _, p := range paths {
			info, err := os.Lstat(filepath.Join(root, p))
			if err != nil {
				t.Fatal(err)
			}
			r, at, name := dirs.lookupAt(p)
			o := ws.read(r, at, name, candidate{path: p, info: info, fast: true})
			if o.err != nil || o.state.Hash != store.HashBytes([]byte(p)) {
				t.Fatalf("%s read as %+v (err %v)", p, o.state, o.err)
			}
		}
	}
	if len(dirs.recent) != recentDirs {
		t.Errorf("%d directories kept open, want %d", len(dirs.recent), recentDirs)
	}
}
