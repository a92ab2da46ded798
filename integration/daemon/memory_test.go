package daemon

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/ckptdev/ckpt/integration/local"
)

func TestLimitMemoryFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // set once, then return
	limitMemory(ctx)
	if got := debug.SetMemoryLimit(-1); got < memoryFloor || got == old {
		t.Errorf("limit = %d, want at least the floor %d (and set)", got, memoryFloor)
	}

	keep := make([][]byte, 0, 128)
	for range 128 {
		keep = append(keep, make([]byte, 1<<20)) // 128 MiB live
	}
	runtime.GC()
	limitMemory(ctx)
	if got, min := debug.SetMemoryLimit(-1), int64(memoryHeadroom*128<<20); got < min {
		t.Errorf("limit with 128 MiB live = %d MiB, want at least %d MiB", got>>20, min>>20)
	}
	runtime.KeepAlive(keep)

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	limitMemory(ctx)
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set the limit became %d", got)
	}
}

// TestLimitMemoryCountsWhatTheHeapCannotGiveBack: with the live heap
// scattered over spans (an eighth of each span's slots kept), the memory
// the runtime holds is far more than the live heap; a limit under it
// makes the collector run continuously. The limit must leave room above
// what the runtime holds after a collection.
func TestLimitMemoryCountsWhatTheHeapCannotGiveBack(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)

	all := make([]*[256]byte, 1<<19) // 128 MiB of 256-byte objects
	for i := range all {
		all[i] = new([256]byte)
	}
	keep := make([]*[256]byte, 0, len(all)/8) // 16 MiB of them kept
	for i := 0; i < len(all); i += 8 {
		keep = append(keep, all[i])
	}
	all = nil
	runtime.GC()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	limitMemory(ctx)
	limit := debug.SetMemoryLimit(-1)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	held := int64(ms.Sys - ms.HeapReleased - (ms.HeapIdle - ms.HeapReleased))
	if limit < held+int64(len(keep))*256/4 {
		t.Errorf("limit %d MiB with %d MiB held by the runtime (%d MiB live): the collector cannot get under it", limit>>20, held>>20, len(keep)*256>>20)
	}
	runtime.KeepAlive(keep)
}

// While a first import holds the memory limit, the daemon's limit does not
// replace it with its own (half as much again as the live heap).
func TestLimitMemoryLeavesAnImportsLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)

	restore := local.LimitImportMemory()
	defer restore()
	during := debug.SetMemoryLimit(-1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	limitMemory(ctx)
	if got := debug.SetMemoryLimit(-1); got != during {
		t.Errorf("limit during an import = %d MiB after the daemon set its own, want the import's %d MiB", got>>20, during>>20)
	}
}
