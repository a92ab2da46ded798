package daemon

import (
	"errors"
	"testing"
)

func TestLockStateDir(t *testing.T) {
	dir := t.TempDir()
	release, err := LockStateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockStateDir(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v, want ErrLocked", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	release, err = LockStateDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release()
}
