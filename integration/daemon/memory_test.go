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
