package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cespare/xxhash/v2"
)

// The physical floor of the large-tree figures: what the machine needs to
// do the least that each figure implies, measured in the same run on the
// same tree, so that a ckpt figure is read against the disk and the CPUs
// rather than only against git.
//
//   - walk + lstat: list every directory and lstat every entry, with the
//     parallelism of ckpt's walker. What any scan of the tree costs (an
//     embedded status, the daemon's initial walk).
//   - read + xxhash: the same walk, and every regular file read whole and
//     hashed with xxhash64 by as many readers as ckpt's capture uses. What
//     any first import must do at least.
//   - an empty binary: the start of a static Go program whose main returns.
//     What any command costs at least.

// floorWorkers is the parallelism of both walks: ckpt's walker lists
// max(4, 2×GOMAXPROCS) directories at once and its capture reads with
// 2×GOMAXPROCS workers.
func floorWorkers() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// floorResult is one floor measurement.
type floorResult struct {
	files int64
	bytes int64
	t     timing
}

// walkFloor walks root in parallel, lstat'ing every entry (skipping .git),
// and with read also reads and hashes every regular file.
func walkFloor(ctx context.Context, root string, read bool) (floorResult, error) {
	workers := floorWorkers()
	var res floorResult
	var files, bytes atomic.Int64
	var firstErr error
	var errOnce sync.Once
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }

	dirs := make(chan string, 1<<16)
	toRead := make(chan string, 4096)
	var pending sync.WaitGroup // directories listed or queued
	var readers sync.WaitGroup
	if read {
		for range workers {
			readers.Add(1)
			go func() {
				defer readers.Done()
				buf := make([]byte, 256<<10)
				h := xxhash.New()
				for p := range toRead {
					n, err := hashFile(p, h, buf)
					if err != nil {
						fail(err)
						continue
					}
					bytes.Add(n)
				}
			}()
		}
	}
	list := func(dir string) {
		defer pending.Done()
		if ctx.Err() != nil {
			return
		}
		f, err := os.Open(dir)
		if err != nil {
			fail(err)
			return
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			fail(err)
			return
		}
		for _, name := range names {
			p := dir + "/" + name
			var st syscall.Stat_t
			if err := syscall.Lstat(p, &st); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					fail(err)
				}
				continue
			}
			switch st.Mode & syscall.S_IFMT {
			case syscall.S_IFDIR:
				if name != ".git" {
					pending.Add(1)
					select {
					case dirs <- p:
					default:
						go func() { dirs <- p }() // never block a lister on its own queue
					}
				}
			case syscall.S_IFREG:
				files.Add(1)
				if read {
					toRead <- p
				}
			case syscall.S_IFLNK:
				files.Add(1)
			}
		}
	}
	rusage0 := selfCPU()
	start := time.Now()
	pending.Add(1)
	dirs <- filepath.Clean(root)
	var listers sync.WaitGroup
	for range workers {
		listers.Add(1)
		go func() {
			defer listers.Done()
			for d := range dirs {
				list(d)
			}
		}()
	}
	pending.Wait()
	close(dirs)
	listers.Wait()
	close(toRead)
	readers.Wait()
	res.t = timing{wall: time.Since(start), cpu: selfCPU() - rusage0}
	res.files, res.bytes = files.Load(), bytes.Load()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return res, firstErr
}

// hashFile reads the file at p whole and hashes it.
func hashFile(p string, h *xxhash.Digest, buf []byte) (int64, error) {
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	defer f.Close()
	h.Reset()
	n, err := io.CopyBuffer(h, f, buf)
	_ = h.Sum64()
	return n, err
}

// selfCPU is this process's CPU time so far (user + system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// emptyBinary builds a static Go program that does nothing into dir and
// returns its path.
func (b *bench) emptyBinary(dir string) (string, error) {
	src := filepath.Join(dir, "empty")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module empty\n\ngo 1.21\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin", "empty")
	env := append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if _, _, err := run(b.ctx, src, env, "go", "build", "-o", bin, "."); err != nil {
		return "", err
	}
	return bin, nil
}
