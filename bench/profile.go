package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/local"
	"github.com/ckptdev/ckpt/watcher"
)

// profileOp runs one ckpt operation in-process, on the engine the embedded
// client opens (local.Embedded, with the default configuration), on a
// synthetic tree, and writes a CPU profile of it:
//
//	go run ./bench -cpuprofile=/tmp/import.pprof -profile-op=import -sizes=40000
//	go tool pprof -top /tmp/import.pprof
//
// Process start-up and config loading are left out: see the floor row.
func profileOp(ctx context.Context, o *options, work string, n int) error {
	root := filepath.Join(work, "profile-tree")
	state := filepath.Join(work, "profile-state")
	os.RemoveAll(state)
	// With -keep, a tree left by an earlier run of the same -work is
	// profiled again rather than generated again (minutes at 1M files).
	reuse := false
	if o.keep {
		if _, err := os.Stat(root + ".complete"); err == nil {
			reuse = true
		}
	}
	if !reuse {
		os.RemoveAll(root)
		if err := os.MkdirAll(root, 0o755); err != nil {
			return err
		}
	}
	if root2, err := filepath.EvalSymlinks(root); err == nil {
		root = root2
	}
	if !reuse {
		fmt.Fprintf(os.Stderr, "generating %d files\n", n)
		if _, err := genTree(root, n); err != nil {
			return err
		}
		if o.keep { // beside the tree: ckpt must not capture it
			os.WriteFile(root+".complete", nil, 0o644)
		}
	}
	var files []string
	walker := &watcher.Walker{Root: root, Ignorer: watcher.NewIgnorer(root, nil)}
	walker.Walk(ctx, func(rel string, info os.FileInfo) error {
		if info.Mode().IsRegular() {
			files = append(files, rel)
		}
		return nil
	})
	cfg := config.Default()
	cfg.StateDir = state
	cfg.Socket = filepath.Join(state, "ckptd.sock")
	open := func() (*drift.Engine, error) { return local.Embedded(ctx, cfg, root, nil, nil) }
	f, err := os.Create(o.profile)
	if err != nil {
		return err
	}
	defer f.Close()
	var peakStop func() uint64
	defer writeWaitProfiles(o)
	start := func() error {
		if o.blockProf != "" {
			runtime.SetBlockProfileRate(10000) // ns: waits over 10 µs
		}
		if o.mutexProf != "" {
			runtime.SetMutexProfileFraction(1)
		}
		if o.memProfile != "" {
			peakStop = peakHeapProfile(o.memProfile)
		}
		return pprof.StartCPUProfile(f)
	}
	iters := 20
	var took time.Duration
	switch o.profileOp {
	case "import":
		if err := start(); err != nil {
			return err
		}
		t0 := time.Now()
		sampler := sampleRSS(os.Getpid())
		eng, err := open()
		took = time.Since(t0)
		pprof.StopCPUProfile()
		peak, _ := sampler.stop()
		fmt.Fprintf(os.Stderr, "peak RSS during the import %d MB (%d MB anon + %d MB file)\n", peak.RSS>>20, peak.Anon>>20, peak.File>>20)
		if err != nil {
			return err
		}
		iters = 1
		eng.Workspace().Close()
	case "open-status":
		// What one embedded `ckpt status` does after start-up: open the
		// store, reconcile, answer, close.
		eng, err := open()
		if err != nil {
			return err
		}
		eng.Workspace().Close()
		m := modifyOnly(files, 10)
		if err := start(); err != nil {
			return err
		}
		for i := 0; i < iters; i++ {
			m.apply(root, fmt.Sprintf("p%d", i))
			t0 := time.Now()
			eng, err := open()
			if err == nil {
				_, err = eng.Status(ctx)
				eng.Workspace().Close()
			}
			took += time.Since(t0)
			if err != nil {
				pprof.StopCPUProfile()
				return err
			}
		}
		pprof.StopCPUProfile()
	case "status", "checkpoint", "restore":
		eng, err := open()
		if err != nil {
			return err
		}
		defer eng.Workspace().Close()
		base, err := eng.Checkpoint(ctx, "base")
		if err != nil {
			return err
		}
		m := modifyOnly(files, 10)
		if err := start(); err != nil {
			return err
		}
		for i := 0; i < iters; i++ {
			tag := fmt.Sprintf("p%d", i)
			var t0 time.Time
			switch o.profileOp {
			case "status":
				m.apply(root, tag)
				t0 = time.Now()
				_, err = eng.Status(ctx)
			case "checkpoint":
				m.apply(root, tag)
				t0 = time.Now()
				_, err = eng.Checkpoint(ctx, "x")
			case "restore":
				mixed(files, 10, tag).apply(root, tag)
				t0 = time.Now()
				_, err = eng.Restore(ctx, api.RestoreRequest{ID: base.CheckpointID, Exact: true})
			}
			took += time.Since(t0)
			if err != nil {
				pprof.StopCPUProfile()
				return err
			}
		}
		pprof.StopCPUProfile()
	default:
		return fmt.Errorf("unknown -profile-op %q (import, open-status, status, checkpoint, restore)", o.profileOp)
	}
	if peakStop != nil {
		live := peakStop()
		fmt.Fprintf(os.Stderr, "peak live heap %d MB; its profile is in %s (go tool pprof -sample_index=inuse_space)\n", live>>20, o.memProfile)
	}
	m, _ := procMem(os.Getpid())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(os.Stderr, "%s on %d files: %v per operation (%d in-process); profile in %s\n",
		o.profileOp, n, took/time.Duration(iters), iters, o.profile)
	fmt.Fprintf(os.Stderr, "memory: VmHWM %d MB; now RSS %d MB (%d MB anon + %d MB file); Go heap now %d MB, Go total from the OS %d MB\n",
		m.HWM>>20, m.RSS>>20, m.Anon>>20, m.File>>20, ms.HeapAlloc>>20, ms.Sys>>20)
	return nil
}

// peakHeapProfile watches the heap while an operation runs and keeps the
// heap profile of the moment the live heap (measured after a forced GC)
// was largest. stop ends the watch and returns that peak.
func peakHeapProfile(path string) (stop func() uint64) {
	runtime.MemProfileRate = 64 << 10
	done := make(chan struct{})
	finished := make(chan uint64)
	go func() {
		var seen, best uint64
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				finished <- best
				return
			case <-t.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc < seen+seen/10 {
				continue
			}
			seen = ms.HeapAlloc
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc <= best {
				continue
			}
			best = ms.HeapAlloc
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}()
	return func() uint64 { close(done); return <-finished }
}

// writeWaitProfiles writes the blocking and mutex profiles asked for.
func writeWaitProfiles(o *options) {
	for _, p := range []struct{ name, path string }{{"block", o.blockProf}, {"mutex", o.mutexProf}} {
		if p.path == "" {
			continue
		}
		if f, err := os.Create(p.path); err == nil {
			pprof.Lookup(p.name).WriteTo(f, 0)
			f.Close()
		}
	}
}
