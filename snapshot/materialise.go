package snapshot

import (
	"context"
	"fmt"
	"os"
	"path"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// Materialise writes every path's entry to the workspace's directory,
// which holds none of them yet (a clone's fresh directory): contents,
// permission bits and symlinks exactly, all made durable by one syncfs.
// It then records the stat tuples the disk now has, so the next scan
// reads nothing. It returns the number of paths written.
func (ws *Workspace) Materialise(ctx context.Context) (int, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	type entry struct {
		path string
		st   store.State
	}
	var entries []entry
	err := ws.st.View(func(r *store.Reader) error {
		return r.Entries("", func(p string, st store.State) error {
			if !validRel(p) {
				return fmt.Errorf("materialise: %q is not a path inside the workspace", p)
			}
			entries = append(entries, entry{p, st})
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	root, err := os.OpenRoot(ws.root)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	// The directories first, then the entries, several at once: creating
	// files is system calls, which overlap.
	dirs := map[string]bool{".": true}
	for _, e := range entries {
		if !e.st.Stored && e.st.Kind == store.File {
			return 0, fmt.Errorf("materialise %s: its content is not stored (larger than max_file_size, or unreadable when captured)", e.path)
		}
		if dir := path.Dir(e.path); !dirs[dir] {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return 0, err
			}
			dirs[dir] = true
		}
	}
	touched := make([]entry, len(entries))
	err = eachParallel(ctx, materialiseWorkers, len(entries), func(i int) error {
		e := entries[i]
		if err := ws.writeEntry(root, e.path, e.st); err != nil {
			return fmt.Errorf("materialise %s: %w", e.path, err)
		}
		info, err := root.Lstat(e.path)
		if err != nil {
			return err
		}
		disk := statState(info)
		e.st.Mtime, e.st.Ctime, e.st.Inode, e.st.Recorded = disk.Mtime, disk.Ctime, disk.Inode, time.Now().UnixNano()
		touched[i] = e
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := syncFS(root); err != nil {
		return 0, err
	}
	err = ws.st.Write(func(w *store.Writer) error {
		for _, e := range touched {
			if err := w.Touch(e.path, e.st); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = ws.st.Sync()
	}
	return len(touched), err
}

// writeEntry puts one path's state on disk, durably, under root.
func (ws *Workspace) writeEntry(root *os.Root, name string, st store.State) error {
	var content []byte
	err := ws.st.View(func(r *store.Reader) (err error) {
		content, err = r.Blob(st.Hash)
		return err
	})
	if err != nil {
		return err
	}
	if st.Kind == store.Symlink {
		return root.Symlink(string(content), name)
	}
	// The directory is new and no one reads it before the clone is done:
	// no temp file, and one syncfs at the end (Materialise) makes it all
	// durable.
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode.Perm())
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(st.Mode.Perm()) // the umask may have narrowed it
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// materialiseWorkers is how many entries Materialise writes at once.
const materialiseWorkers = 8

// eachParallel runs fn(0..n-1) on k goroutines, stopping at the first
// error (or ctx's end), which it returns.
func eachParallel(ctx context.Context, k, n int, fn func(i int) error) error {
	var next atomic.Int64
	var once sync.Once
	var first error
	fail := func(err error) { once.Do(func() { first = err }) }
	var wg sync.WaitGroup
	for range min(k, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				if err := fn(i); err != nil {
					fail(err)
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
