package snapshot

import (
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Freeing the inodes a restore replaces, off its critical path. A rename
// over a file (or an unlink of one) that drops its last link frees the
// inode there and then, inside the system call: ext4 truncates it, gives
// its blocks back and (with the discard mount option) trims them, which
// is most of what a restore's rename costs in the kernel (BENCHMARKS.md).
// An open descriptor defers that to its close: the name still goes at
// once (the rename stays atomic, every reader sees the old content or the
// new one whole), only the freeing of the old inode waits. So before it
// replaces or removes a file, a restore opens it with O_PATH (no access
// needed, no inotify event, no content read), and closes the descriptors
// in the background once the restore is recorded. A crash closes them as
// any exit does; the kernel frees the inodes then (after a power cut, the
// file system's orphan recovery does), so nothing is left to clean up and
// nothing depends on it.

// holdMax bounds the descriptors one restore holds: beyond it, what is
// held is handed to the background closer and the count starts again, so
// a restore of any size keeps a bounded number open beside the
// directories a batch holds (batchDirs, a quarter of the open-file limit):
// an eighth of the limit, at most 4096.
var holdMax = func() int {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	return int(min(4096, lim.Cur/8))
}()

// holder keeps replaced inodes open until release.
type holder struct {
	dir  string // the workspace: its file system is synced after the frees
	mu   sync.Mutex
	held []*os.File
}

// hold opens name in root, without following a symlink, to keep its
// inode until release. A name that is not there, or cannot be opened, is
// not held: its rename or removal frees it as it always did.
func (h *holder) hold(root *os.Root, name string) {
	if holdMax == 0 {
		return
	}
	f, err := root.OpenFile(name, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	h.mu.Lock()
	h.held = append(h.held, f)
	var full []*os.File
	if len(h.held) >= holdMax {
		full, h.held = h.held, nil
	}
	h.mu.Unlock()
	if full != nil {
		go closeAll(full, "")
	}
}

// release closes what is held in the background: the inodes whose last
// name the restore replaced are freed then.
func (h *holder) release() {
	h.mu.Lock()
	held := h.held
	h.held = nil
	h.mu.Unlock()
	if len(held) > 0 {
		go closeAll(held, h.dir)
	}
}

// closeAll closes files, then (with dir set) syncs dir's file system. The
// sync is for ext4 without a journal: it will not reuse an inode freed in
// the last 5 seconds, or in the last 300 while the block that holds it is
// unwritten, and scans past each such inode at every file it creates, so
// a restore's frees left unwritten would make the next restore's temp
// files slow to create (BENCHMARKS.md). The restore's own syncs write what
// it freed itself; this one writes what it freed late.
func closeAll(files []*os.File, dir string) {
	for _, f := range files {
		f.Close()
	}
	if dir == "" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		unix.Syncfs(int(d.Fd()))
		d.Close()
	}
}
