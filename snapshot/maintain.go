package snapshot

import (
	"context"

	"github.com/ckptdev/ckpt/store"
)

// MaintainIfIdle is store.Maintain (the final encoding for what captures
// stored, then the space given back) unless a Recompress or Repack runs
// already, in which case it leaves the store as it is and reports ran
// false. It stops, besides store.Maintain's own reasons, once a run is
// open: a run's captures come in bursts, and the work waits for the next
// quiet spell.
func (ws *Workspace) MaintainIfIdle(ctx context.Context, pause func()) (ms store.MaintainStats, ran bool, err error) {
	if !ws.recompressing.TryLock() {
		return ms, false, nil
	}
	defer ws.recompressing.Unlock()
	ms, err = ws.st.Maintain(ctx, pause, func() bool { return len(ws.Active().Runs) > 0 })
	return ms, true, err
}
