package snapshot

import "sync"

// A first import reads every file of the tree once and keeps none of the
// bytes it read (the fast codec copies what it stores), so its readers
// reuse their buffers: a fresh one per file was 2.2 GB allocated and
// zeroed at 200,000 files, and a tenth of the import's CPU in the
// allocator and the collector.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledRead: a buffer grown past this by a large file is dropped, not
// kept for the next.
const maxPooledRead = 4 << 20

func takeReadBuffer() *[]byte { return readBuffers.Get().(*[]byte) }

func putReadBuffer(b *[]byte) {
	if cap(*b) > maxPooledRead {
		*b = nil
	}
	readBuffers.Put(b)
}
