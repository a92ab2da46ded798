package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/store"
)

// A first import opens every file of the tree once. Through os.Root each
// open also made an *os.File: a fcntl to set it non-blocking, an epoll
// registration that a regular file refuses, a finalizer, and a walk of the
// name through the root's resolution: at 200,000 files about 4% of the
// import's CPU above the open, read, fstat and close it needs. The import's
// readers open a file with one openat in its directory instead: the
// directory is opened through the workspace's os.Root (so it is as
// confined as the workspace), the name is one component, and O_NOFOLLOW
// refuses a symlink put in its place (the read then finds the path changed
// and looks again, through the os.Root).

// lookupAt is lookup for a first import's readers, which also returns the
// directory the name is in, open, for readContentAt (nil when it could not
// be opened: the root and name returned then reach the path from the
// workspace's root). The walk lists several directories at once, so one
// reader's files come from a few directories in turn: it keeps the last
// recentDirs of them open (opening a directory through the os.Root opens
// each of its path's components: at every change of directory, that was
// 5% of a 200,000-file import's CPU).
func (d *dirCache) lookupAt(p string) (*os.Root, *os.File, string) {
	dir, name := path.Split(p)
	if dir == "" {
		if d.top == nil && !d.topTried {
			d.topTried = true
			d.top, _ = d.root.Open(".")
		}
		return d.root, d.top, p
	}
	dir = dir[:len(dir)-1]
	for i, od := range d.recent {
		if od.dir == dir {
			copy(d.recent[1:i+1], d.recent[:i])
			d.recent[0] = od
			return od.r, od.f, name
		}
	}
	r, err := d.root.OpenRoot(dir)
	if err != nil {
		return d.root, nil, p
	}
	f, _ := r.Open(".") // the directory r holds, whatever its path holds now
	if len(d.recent) == recentDirs {
		d.recent[recentDirs-1].close()
		d.recent = d.recent[:recentDirs-1]
	}
	d.recent = append(d.recent, openDir{})
	copy(d.recent[1:], d.recent)
	d.recent[0] = openDir{dir: dir, r: r, f: f}
	return r, f, name
}

// recentDirs is how many directories lookupAt keeps open.
const recentDirs = 8

// openDir is a directory lookupAt keeps open.
type openDir struct {
	dir string
	r   *os.Root
	f   *os.File // nil if it could not be opened
}

func (od openDir) close() {
	od.r.Close()
	if od.f != nil {
		od.f.Close()
	}
}

// readContentAt is readContent, for a regular file named by one path
// component in the open directory at, with the system calls alone. With
// no directory, or for anything but a regular file to store, it is
// readContent.
func (ws *Workspace) readContentAt(at *os.File, root *os.Root, name string, st store.State, scratch *[]byte) (content, error) {
	if at == nil || st.Kind != store.File || (ws.opts.MaxFileSize > 0 && st.Hash.Size > ws.opts.MaxFileSize) {
		return ws.readContent(root, name, st, scratch)
	}
	fd, err := openAt(int(at.Fd()), name)
	if err != nil {
		return content{}, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	defer unix.Close(fd)
	b := readBuffer(scratch, st.Hash.Size)
	for {
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return content{}, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			break
		}
		b = b[:len(b)+n]
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
			if scratch != nil {
				*scratch = b
			}
		}
	}
	info := &fsutil.StatInfo{Base: name}
	if err := unix.Fstat(fd, &info.Stat); err != nil {
		return content{}, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	return content{hash: store.HashBytes(b), bytes: b, stored: true, info: info}, nil
}

// openAt opens name in the directory dirfd for reading, never following a
// symlink and never waiting on a FIFO put in the file's place.
func openAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}

// closeAll is close, and closes what lookupAt opened.
func (d *dirCache) closeAll() {
	d.close()
	for _, od := range d.recent {
		od.close()
	}
	d.recent = nil
	if d.top != nil {
		d.top.Close()
	}
	d.top, d.topTried = nil, false
}
