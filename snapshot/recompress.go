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
	ws.recompressing.Lock()
	defer ws.recompressing.Unlock()
	if !ws.st.RecompressPending() {
		return store.RecompressStats{}, nil
	}
	return ws.st.Recompress(ctx, pause)
}

// RecompressIfIdle is Recompress (without pauses) unless one runs already
// (the daemon's, in the background), in which case it leaves the work to
// it and reports ran false.
func (ws *Workspace) RecompressIfIdle(ctx context.Context) (rs store.RecompressStats, ran bool, err error) {
	if !ws.recompressing.TryLock() {
		return rs, false, nil
	}
	defer ws.recompressing.Unlock()
	if !ws.st.RecompressPending() {
		return rs, false, nil
	}
	rs, err = ws.st.Recompress(ctx, nil)
	return rs, true, err
}

// RepackIfIdle rewrites every whole content not in the store's final
// encoding yet (store.Repack: the first import's, and those captures
// stored at zstd's fastest level) unless a Recompress runs already (the
// daemon's, in the background), in which case it leaves the store as it
// is and reports ran false. The caller gives the replaced chunks' space
// back (Collect does).
func (ws *Workspace) RepackIfIdle(ctx context.Context) (rs store.RecompressStats, ran bool, err error) {
	if !ws.recompressing.TryLock() {
		return rs, false, nil
	}
	defer ws.recompressing.Unlock()
	rs, err = ws.st.Repack(ctx, nil)
	return rs, true, err
}
