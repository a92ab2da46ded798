package store

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTrimLogs: an unclosed session's logs are cut at their first hole
// (the unbacked tail Badger sized them to), a log with no data is removed,
// and a closed log is left alone.
func TestTrimLogs(t *testing.T) {
	dir := t.TempDir()
	page := int64(os.Getpagesize())
	write := func(name string, data []byte, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data := make([]byte, 3*page+100)
	for i := range data {
		data[i] = byte(i%251 + 1)
	}
	sparse := write("00007.mem", data, 16<<20)
	vlog := write("000003.vlog", data[:200], 128<<20)
	closed := write("000002.vlog", data, int64(len(data)))
	holes := write("00008.mem", nil, 16<<20)
	empty := write("00009.mem", nil, 0)
	other := write("000001.sst", nil, 1<<20)

	if err := trimLogs(dir); err != nil {
		t.Fatal(err)
	}
	size := func(p string) int64 {
		info, err := os.Stat(p)
		if err != nil {
			return -1
		}
		return info.Size()
	}
	// Where the file system allocates in pages or blocks, the data's last
	// one is kept whole.
	for _, c := range []struct {
		path     string
		min, max int64
	}{
		{sparse, int64(len(data)), 16 << 20},
		{vlog, 200, 128 << 20},
		{closed, int64(len(data)), int64(len(data))},
		{other, 1 << 20, 1 << 20},
	} {
		if got := size(c.path); got < c.min || got > c.max || (c.max > 1<<20 && got > 1<<20) {
			t.Errorf("%s: size %d after trimLogs, want at least %d and not its unbacked tail", filepath.Base(c.path), got, c.min)
		}
	}
	for _, p := range []string{holes, empty} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s holds no data: want it removed, stat says %v", filepath.Base(p), err)
		}
	}
	got, err := os.ReadFile(sparse)
	if err != nil || string(got[:len(data)]) != string(data) {
		t.Errorf("the data of a trimmed log changed (%v)", err)
	}
}

// TestStoreFull runs the store on a small tmpfs that fills up: a write
// fails with a FullError (ENOSPC) instead of the SIGBUS Badger's mapped
// writes would die of, what was written before stays readable, the store
// closes (its reserve pays for the flush) and opens again, and writes
// work again once the space is back.
func TestStoreFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount: %v", err)
		}
	})
	dir := filepath.Join(mnt, "store")
	s, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	before := confPutBlob(t, s, []byte("acknowledged before the disk filled"))
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, reserveName)); err != nil {
		t.Fatalf("no reserve after the first write: %v", err)
	}

	filler := filepath.Join(mnt, "filler")
	fill(t, filler)
	err = s.Write(func(w *Writer) error {
		for i := range 64 {
			content := []byte(fmt.Sprintf("while full %d %0512d", i, i))
			h := HashBytes(content)
			if err := w.PutBlob(h, EncodeBlob(content)); err != nil {
				return err
			}
		}
		return nil
	})
	var fe *FullError
	if !errors.As(err, &fe) || !IsFull(err) {
		t.Fatalf("a write on a full file system: %v, want a FullError that matches ENOSPC", err)
	}
	if fe.Dir != dir || fe.Free >= WriteHeadroom {
		t.Errorf("FullError %+v: want Dir %s and less than WriteHeadroom free", fe, dir)
	}
	if err := s.SpaceError(); !IsFull(err) {
		t.Errorf("SpaceError while full: %v", err)
	}
	assertBlob(t, s, before, "acknowledged before the disk filled")
	if err := s.Close(); err != nil {
		t.Fatalf("close while full: %v", err)
	}
	r, err := OpenLazy(dir, time.Second)
	if err != nil {
		t.Fatalf("open for reading while full: %v", err)
	}
	assertBlob(t, r, before, "acknowledged before the disk filled")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	after := confPutBlob(t, s, []byte("written once the space was back"))
	assertBlob(t, s, after, "written once the space was back")
	assertBlob(t, s, before, "acknowledged before the disk filled")
}

// fill writes a file until its file system has no space left.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for size := len(buf); size >= 512; size /= 2 {
		for {
			if _, err := f.Write(buf[:size]); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
}

func assertBlob(t *testing.T, s *Store, h Hash, want string) {
	t.Helper()
	if got := confReadBlob(t, s, h); string(got) != want {
		t.Errorf("blob %v: %q, want %q", h, got, want)
	}
}
