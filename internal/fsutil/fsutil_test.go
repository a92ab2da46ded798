package fsutil

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/fault"
)

func TestLockWaitsThenFailsBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := Lock(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Lock(context.Background(), path, 150*time.Millisecond)
	if !errors.Is(err, ErrLocked) || !errors.Is(err, fault.Busy) {
		t.Fatalf("second lock: %v, want ErrLocked (fault.Busy)", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("gave up after %s, not the wait", d)
	}
	held.Close()
	f, err := Lock(context.Background(), path, 0)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	f.Close()
}

func TestLockEndsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := Lock(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Lock(ctx, path, -1)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock with a done context: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s to notice the context", d)
	}
}

func TestWriteAtomicLeavesOldFileOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	boom := errors.New("boom")
	err = WriteAtomic(root, "state.json", 0o600, func(f *os.File) error {
		f.WriteString("half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteAtomic: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write: %q", b)
	}
	if err := WriteFile(path, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(b) != "new" || info.Mode().Perm() != 0o640 {
		t.Errorf("after a write: %q %v", b, info.Mode())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), InternalPrefix) {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}
