package local

import (
	"context"

	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// Recompress rewrites the contents a first import stored with its fast
// codec in the final encoding (snapshot.Workspace.Recompress, pause called
// between steps) under the import's memory limit (LimitImportMemory): it
// is the import's second half, and allocates as one does. Each step reads
// 8 MiB of chunks, decodes and encodes them, and Badger's compactions
// build tables in buffers of their own (a 3 MiB index builder for every
// 1 MiB table): at the collector's default goal a 200,000-file daemon's
// heap swung to 160 MB over a live heap of 80 MB while it recompressed.
func Recompress(ctx context.Context, ws *snapshot.Workspace, pause func()) (store.RecompressStats, error) {
	restore := LimitImportMemory()
	defer restore()
	return ws.Recompress(ctx, pause)
}

// limitScanMemory holds the import's memory limit (LimitImportMemory)
// for an embedded command's scan: a reconcile holds every entry while it
// walks, and after a first import the heap the import left grows to
// twice itself first under the collector's default goal (an embedded
// `ckpt status` of a 200,000-file workspace peaked at 200 MB in the
// reconcile after its import, against 165 MB in the import).
func limitScanMemory() (restore func()) { return LimitImportMemory() }
