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
//
// The runtime holds the limit against all the memory it has from the
// system, not the heap's objects alone: spans half full of live objects,
// stacks, its own metadata. Those are added on top, as they are now:
// with the limit at memoryHeadroom times the live heap alone, a daemon
// whose spans held 21 MB of free slots (200,000 files served) stood over
// its limit while idle and collected ten times a second, a fifth of a
// core, and every request paid in assists.
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
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	set := func() {
		if local.Importing() { // the import holds the limit meanwhile
			return
		}
		metrics.Read(samples)
		if limit, ok := memoryLimit(samples); ok {
			debug.SetMemoryLimit(limit)
		}
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

// memoryLimit is the limit for the runtime's metrics in samples (as
// limitMemory reads them): memoryHeadroom times the live heap plus what
// the runtime holds besides the heap's objects and its free pages.
func memoryLimit(samples []metrics.Sample) (int64, bool) {
	var v [5]uint64
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0, false
		}
		v[i] = s.Value.Uint64()
	}
	live, total, released, free, objects := v[0], v[1], v[2], v[3], v[4]
	var overhead uint64
	if held := released + free + objects; total > held {
		overhead = total - held
	}
	return max(memoryFloor, int64(memoryHeadroom*float64(live))+int64(overhead)), true
}
