package snapshot

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// How a restore makes its writes durable. An fsync waits for a journal
// commit and a device flush; one after the other they cost a restore of ten
// files ten flushes. Issued together, the file system commits them in one
// or two journal transactions (ext4 here: 10 files 23 ms one by one, 2.3 ms
// together; syncfs 1.3-2.2 ms). syncfs flushes the whole file system,
// including other programs' dirty data, so it is used only where it saves
// hundreds of waits: at 100 files it took a third of the time of the
// concurrent fsyncs, at 1000 a quarter.
var (
	// syncfsFrom: a batch of at least this many files (or directories) is
	// made durable by one syncfs instead of concurrent fsyncs.
	syncfsFrom = 64
	// syncWorkers bounds the fsyncs in flight.
	syncWorkers = 32
)

// stagedFile is a temp file written but not yet renamed into place. f is
// the file, still open, when it is to be fsynced on its own; it is nil for a
// symlink and for a file in a batch that one syncfs makes durable.
type stagedFile struct {
	tmp  string
	f    *os.File
	file bool // a regular file, whose data must be durable before the rename
}

// syncStaged makes the staged files' data durable and closes those still
// open; it returns an error per file (nil where it is durable). A symlink
// cannot be opened to be fsynced; a journaling file system commits its
// creation no later than the rename that follows it.
func syncStaged(root *os.Root, staged []stagedFile) []error {
	errs := make([]error, len(staged))
	var files []int
	bulk := false
	for i, s := range staged {
		switch {
		case s.f != nil:
			files = append(files, i)
		case s.file:
			bulk = true
		}
	}
	if bulk {
		if err := syncFS(root); err != nil {
			for i, s := range staged {
				if s.file {
					errs[i] = err
				}
			}
		}
	}
	inParallel(len(files), syncWorkers, func(k int) {
		i := files[k]
		errs[i] = staged[i].f.Sync()
		if cerr := staged[i].f.Close(); errs[i] == nil {
			errs[i] = cerr
		}
	})
	return errs
}

// syncDirs makes the entries of the given directories durable: the
// renames, creations and removals in them. A large restore (staged files
// or directories at least syncfsFrom) uses one syncfs. A directory that
// cannot be opened is no longer one: a removal emptied it, or a file or
// symlink took its place, so its parent, whose entry changed, is in dirs.
func syncDirs(root *os.Root, dirs map[string]bool, staged int) error {
	if len(dirs) == 0 {
		return nil
	}
	if staged >= syncfsFrom || len(dirs) >= syncfsFrom {
		return syncFS(root)
	}
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	errs := make([]error, len(list))
	inParallel(len(list), syncWorkers, func(i int) {
		d, err := root.Open(list[i])
		if err != nil {
			return
		}
		defer d.Close()
		if err := d.Sync(); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOTSUP) {
			// EINVAL, ENOTSUP: the file system cannot sync a directory;
			// there is nothing stronger to do.
			errs[i] = err
		}
	})
	return errors.Join(errs...)
}

// syncFS makes everything written to the workspace's file system durable.
func syncFS(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}
