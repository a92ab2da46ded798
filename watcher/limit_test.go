package watcher

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckWatchLimit(t *testing.T) {
	old := maxUserWatchesFile
	t.Cleanup(func() { maxUserWatchesFile = old })
	maxUserWatchesFile = filepath.Join(t.TempDir(), "max_user_watches")
	must(t, os.WriteFile(maxUserWatchesFile, []byte("8192\n"), 0o644))

	if err := CheckWatchLimit(100); err != nil {
		t.Errorf("100 dirs under a limit of 8192: %v", err)
	}
	err := CheckWatchLimit(8000)
	if err == nil || !strings.Contains(err.Error(), "sudo sysctl fs.inotify.max_user_watches=524288") {
		t.Errorf("8000 dirs under a limit of 8192: %v, want the sysctl fix", err)
	}
	if err := CheckWatchLimit(1_000_000); err == nil || !strings.Contains(err.Error(), "max_user_watches=4194304") {
		t.Errorf("a million dirs: %v, want a limit above twice the need", err)
	}
	maxUserWatchesFile = filepath.Join(t.TempDir(), "missing")
	if err := CheckWatchLimit(1 << 30); err != nil {
		t.Errorf("unreadable limit: %v, want nil", err)
	}
	if !isWatchLimit(syscall.ENOSPC) || isWatchLimit(syscall.ENOENT) {
		t.Error("isWatchLimit misclassifies")
	}
}
