package snapshot

import (
	"context"

	"github.com/ckptdev/ckpt/store"
)

// Recompress rewrites the contents a first import stored with its fast
// codec as zstd ones (store.Recompress: a step at a time, pause called
// between steps), then gives the space they held back (Reclaim). It does
// nothing when no import left such contents.
func (ws *Workspace) Recompress(ctx context.Context, pause func()) (store.RecompressStats, error) {
	if !ws.st.RecompressPending() {
		return store.RecompressStats{}, nil
	}
	rs, err := ws.st.Recompress(ctx, pause)
	if err != nil || rs.Chunks == 0 {
		return rs, err
	}
	_, err = ws.st.Reclaim()
	return rs, err
}
