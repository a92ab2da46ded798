package watcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestSyncWaitsForIndexLock(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".git/HEAD", "ref: refs/heads/main\n")
	h := start(t, root, Options{})
	lock := filepath.Join(root, ".git", "index.lock")
	writeFile(t, root, ".git/index.lock", "")

	synced := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		synced <- h.w.Sync(ctx)
	}()
	select {
	case err := <-synced:
		t.Fatalf("Sync returned while index.lock exists: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	// The "checkout" writes, then releases the lock.
	writeFile(t, root, "checked-out", "x")
	must(t, os.Remove(lock))
	select {
	case err := <-synced:
		must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Sync still waiting after index.lock went away")
	}
	if _, ok := h.sink.snapshot()["checked-out"]; !ok {
		t.Fatal("a file written before index.lock went away was not captured when Sync returned")
	}
	h.check("after checkout")
}

func TestSyncTimeout(t *testing.T) {
	root := t.TempDir()
	h := start(t, root, Options{})
	writeFile(t, root, ".git/index.lock", "")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	begin := time.Now()
	err := h.w.Sync(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sync = %v, want a deadline error", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("Sync took %v to notice its deadline", d)
	}

	// A sink that is stuck: the cookie round cannot complete in time.
	must(t, os.Remove(filepath.Join(root, ".git", "index.lock")))
	block := make(chan struct{})
	h.sink.mu.Lock()
	h.sink.block = block
	h.sink.mu.Unlock()
	writeFile(t, root, "f", "x")
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if err := h.w.Sync(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sync with a stuck sink = %v, want a deadline error", err)
	}
	h.sink.mu.Lock()
	h.sink.block = nil
	h.sink.mu.Unlock()
	close(block)
	h.check("after the sink recovered")

	cancelled, cancel3 := context.WithCancel(context.Background())
	cancel3()
	if err := h.w.Sync(cancelled); err == nil {
		t.Fatal("Sync with a cancelled context succeeded")
	}
}

// TestConcurrentSync: every caller sees its own write captured when its
// Sync returns, however the callers share cookie rounds.
func TestConcurrentSync(t *testing.T) {
	root := t.TempDir()
	h := start(t, root, Options{Debounce: 50 * time.Millisecond, MaxDelay: time.Second})
	const callers, rounds = 16, 5
	var wg sync.WaitGroup
	errs := make(chan error, callers*rounds)
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				rel := fmt.Sprintf("c%02d/r%d", c, r)
				if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
					errs <- err
					return
				}
				if err := os.WriteFile(filepath.Join(root, rel), []byte(rel), 0o644); err != nil {
					errs <- err
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := h.w.Sync(ctx)
				cancel()
				if err != nil {
					errs <- err
					return
				}
				if st, ok := h.sink.snapshot()[rel]; !ok || st.data != rel {
					errs <- fmt.Errorf("%s not captured when its Sync returned", rel)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	h.check("after concurrent syncs")
	leftovers, _ := filepath.Glob(filepath.Join(root, cookiePrefix+"*"))
	if len(leftovers) > 0 {
		t.Errorf("cookies left behind: %q", leftovers)
	}
}
