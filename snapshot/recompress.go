package snapshot

import (
	"context"

	"github.com/ckptdev/ckpt/store"
)

// Recompress rewrites the contents a first import stored with its fast
// codec as zstd ones (store.Recompress: a step at a time, pause called
// between steps) and gives the space they held back. It does nothing when
// no import left such contents.
func (ws *Workspace) Recompress(ctx context.Context, pause func()) (store.RecompressStats, error) {
	if !ws.st.RecompressPending() {
		return store.RecompressStats{}, nil
	}
	return ws.st.Recompress(ctx, pause)
}
