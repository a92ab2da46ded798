package snapshot

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

func TestSharedWritable(t *testing.T) {
	const prefix = "/tmp/ws/"
	cases := []struct {
		line string
		want string // "" = not a shared writable mapping of a workspace file
	}{
		{"7f0000000000-7f0000001000 rw-s 00000000 fd:01 1234   /tmp/ws/data.bin", "data.bin"},
		{"7f0000000000-7f0000001000 rw-s 00000000 fd:01 1234   /tmp/ws/dir/with space.db", "dir/with space.db"},
		{"7f0000000000-7f0000001000 r--s 00000000 fd:01 1234   /tmp/ws/read-only", ""},
		{"7f0000000000-7f0000001000 rw-p 00000000 fd:01 1234   /tmp/ws/private", ""},
		{"7f0000000000-7f0000001000 rw-s 00000000 fd:01 1234   /tmp/ws/gone (deleted)", ""},
		{"7f0000000000-7f0000001000 rw-s 00000000 fd:01 1234   /home/tmp/ws/elsewhere", ""},
		{"7f0000000000-7f0000001000 rw-s 00000000 00:01 99     /dev/zero", ""},
		{"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ", ""},
		{"garbage", ""},
	}
	for _, tc := range cases {
		got, ok := sharedWritable(tc.line, prefix)
		if (tc.want != "") != ok || got != tc.want && ok {
			t.Errorf("sharedWritable(%q) = %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
}

// TestRescanReadsMappedFiles: a second write to a page of a shared mapping
// that is still dirty moves no stat field, so Reconcile trusts the entry;
// Rescan reads the files mapped for writing whatever their stat says.
func TestRescanReadsMappedFiles(t *testing.T) {
	e := newPruneEnv(t)
	p := filepath.Join(e.root, "data.bin")
	if err := os.WriteFile(p, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.reconcile()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	e.must(err)
	m, err := syscall.Mmap(int(f.Fd()), 0, 12, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	e.must(f.Close())
	e.must(err)
	t.Cleanup(func() { syscall.Munmap(m) })

	copy(m, "HELLO") // the write fault moves mtime and ctime
	// Out of the racy window, so that the entry's stat is trusted.
	old := time.Now().Add(-time.Hour)
	e.must(os.Chtimes(p, old, old))
	e.reconcile()
	before, err := os.Lstat(p)
	e.must(err)
	copy(m, "howdy") // the page is writable already: no fault, no new mtime
	after, err := os.Lstat(p)
	e.must(err)
	if !sameStat(statState(before), statState(after)) {
		t.Skip("this kernel moved the file's stat on a write to a dirty mapped page: the gap Rescan closes is not there")
	}

	head := e.ws.Store().Head()
	e.reconcile()
	if e.ws.Store().Head() != head {
		t.Fatal("Reconcile recorded the second write: the test cannot tell Rescan from it")
	}
	if got := mappedForWrite(e.root); !got["data.bin"] {
		t.Fatalf("mappedForWrite(%s) = %v, want data.bin (this process maps it)", e.root, got)
	}
	e.must(e.ws.Rescan(e.ctx, pruneWalk(e.root)))
	fcs, err := e.ws.Diff(head, e.ws.Store().Head(), nil, nil)
	e.must(err)
	if len(fcs) != 1 || fcs[0].Path != "data.bin" || fcs[0].Kind != store.Modified || fcs[0].To.Hash != store.HashBytes([]byte("howdy world\n")) {
		t.Fatalf("Rescan recorded %+v, want data.bin modified to the mapping's content", fcs)
	}
}
