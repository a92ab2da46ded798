//go:build unix

package watcher

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWalkSkipsFifo(t *testing.T) {
	root := t.TempDir()
	ignTree{"a.txt": ""}.write(t, root)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	res, err := walkCollect(t, &Walker{Root: root})
	if err != nil || len(res.files) != 1 || res.files["a.txt"] == nil || len(res.errors) > 0 {
		t.Errorf("err %v, files %q, errors %v", err, walkKeys(res.files), res.errors)
	}
}

func TestWalkUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permission bits do not block reads")
	}
	root := t.TempDir()
	ignTree{"locked/x": "", "open/y": ""}.write(t, root)
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	res, err := walkCollect(t, &Walker{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if res.files["open/y"] == nil || res.files["locked/x"] != nil {
		t.Errorf("files %q", walkKeys(res.files))
	}
	if !os.IsPermission(res.errors["locked"]) || len(res.errors) != 1 {
		t.Errorf("errors %v, want permission denied for locked", res.errors)
	}
}
