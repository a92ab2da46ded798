package local

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// ImportMemoryLimit is the soft memory limit (debug.SetMemoryLimit) of a
// process while it runs a first import, in the daemon and in an embedded
// command alike. An import allocates far more than it keeps (every file's
// content read, encoded and handed to Badger, which builds its tables in
// buffers of its own): with the collector's default goal a 200,000-file
// import held twice its live heap, freed but not yet given back to the
// system, and peaked at 320-470 MB. Under the limit the collector runs as
// the heap nears it and the scavenger returns what it frees. The import's
// live heap is bounded by design (the result pipe, Badger's memtables and
// table builders: nothing per file), well under this limit; the limit
// follows the live heap up should it outgrow it (importHeadroom), so that
// an import never spends its time collecting. GOMEMLIMIT, when set, is
// left to the runtime.
var ImportMemoryLimit int64 = 128 << 20

const (
	importHeadroom = 1.25
	importInterval = 250 * time.Millisecond
)

// importLimiter holds the process's memory limit while imports run.
var importLimiter struct {
	mu      sync.Mutex
	running int           // imports in progress
	before  int64         // the limit before the first of them
	stop    chan struct{} // ends the goroutine that follows the live heap
}

// LimitImportMemory holds the process's memory limit at ImportMemoryLimit
// (or importHeadroom times the live heap, if more) until the returned
// function is called; then the limit is what it was before. Imports may
// overlap: the limit is restored when the last one ends.
func LimitImportMemory() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	l := &importLimiter
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running++
	if l.running == 1 {
		l.before = debug.SetMemoryLimit(-1)
		l.stop = make(chan struct{})
		setImportLimit()
		go followLiveHeap(l.stop)
	}
	var once sync.Once
	return func() { once.Do(endImport) }
}

func endImport() {
	l := &importLimiter
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running--
	if l.running == 0 {
		close(l.stop)
		debug.SetMemoryLimit(l.before)
	}
}

// Importing reports whether a first import holds the memory limit: the
// daemon leaves the limit alone meanwhile.
func Importing() bool {
	l := &importLimiter
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running > 0
}

// followLiveHeap raises the limit over the live heap should the heap
// outgrow ImportMemoryLimit, until stop is closed.
func followLiveHeap(stop <-chan struct{}) {
	t := time.NewTicker(importInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			importLimiter.mu.Lock()
			select {
			case <-stop:
			default:
				setImportLimit()
			}
			importLimiter.mu.Unlock()
		}
	}
}

// setImportLimit sets the import's limit from the live heap.
func setImportLimit() {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	limit := ImportMemoryLimit
	if live[0].Value.Kind() == metrics.KindUint64 {
		limit = max(limit, int64(importHeadroom*float64(live[0].Value.Uint64())))
	}
	debug.SetMemoryLimit(limit)
}
