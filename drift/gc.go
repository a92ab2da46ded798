package drift

import (
	"context"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
)

// GC applies the retention policy req carries now (snapshot.Collect) and
// says what it pruned and freed.
func (e *Engine) GC(ctx context.Context, req api.GCRequest) (api.GC, error) {
	if req.RetentionSeconds < 0 || req.RetentionSize < 0 {
		return api.GC{}, invalid("retention and retention_size must not be negative")
	}
	p := snapshot.Policy{MaxAge: time.Duration(req.RetentionSeconds) * time.Second, MaxSize: req.RetentionSize}
	if !req.DryRun {
		// A first import's contents still in the fast codec are made
		// zstd now (a daemon does it in the background; without one,
		// nothing else would), so the space gc reports is given back.
		if _, _, err := e.ws.RecompressIfIdle(ctx); err != nil {
			return api.GC{}, err
		}
	}
	st, err := e.ws.Collect(ctx, p, req.DryRun)
	if err != nil {
		return api.GC{}, err
	}
	out := api.GC{
		DryRun: req.DryRun, RetentionSeconds: req.RetentionSeconds, RetentionSize: req.RetentionSize,
		Checkpoints: st.Checkpoints, Pruned: append([]string{}, st.Pruned...),
		JournalEntries: st.JournalEntries, PathEntries: st.PathEntries, Blobs: st.Blobs,
		BytesBefore: st.BytesBefore, BytesAfter: st.BytesAfter,
		CheckpointsLeft: st.Left, Pinned: []api.GCPin{}, OverBudget: st.OverBudget,
	}
	for _, pin := range st.Pinned {
		out.Pinned = append(out.Pinned, api.GCPin{CheckpointID: pin.ID, Reason: pin.Reason})
	}
	return out, nil
}
