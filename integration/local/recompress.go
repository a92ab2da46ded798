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
