package daemon

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/ckptdev/ckpt/integration/local"
)

// The daemon's soft memory limit (debug.SetMemoryLimit) follows its live
// heap: memoryHeadroom times the heap the last collection kept, and never
// under memoryFloor. With the collector's default goal alone (twice the
// live heap) a burst of captures on a large workspace grew the daemon to
// twice its settled size, and it kept that memory; the limit collects
// sooner instead. It follows the live heap up, so a workspace whose heap
// outgrows the floor does not make every allocation collect (the runtime
// also caps the collector at half the CPU when it cannot stay under the
// limit). While a first import runs, the import's limit holds instead
// (local.LimitImportMemory). GOMEMLIMIT, when set, is left to the runtime.
const (
	memoryFloor    = 64 << 20
	memoryHeadroom = 1.5
	memoryInterval = time.Second
)

// limitMemory keeps the limit up to date until ctx ends.
func limitMemory(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		if local.Importing() { // the import holds the limit meanwhile
			return
		}
		metrics.Read(live)
		if live[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		debug.SetMemoryLimit(max(memoryFloor, int64(memoryHeadroom*float64(live[0].Value.Uint64()))))
	}
	set()
	t := time.NewTicker(memoryInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			set()
		}
	}
}
