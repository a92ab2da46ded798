package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// PruneEvery is how often retention is applied: pruning flattens the
// store, which is worth doing daily, not at every command.
const PruneEvery = 24 * time.Hour

// PruneDue applies a retention policy (Collect) if the last one ran more
// than PruneEvery ago, or more than KeepRecentOverBudget ago when the store
// is over its size budget. It remembers when it ran in a file next to the
// store, so the daemon and the embedded client share the schedule. A zero
// policy keeps everything.
func (ws *Workspace) PruneDue(ctx context.Context, p Policy) (GCStats, bool, error) {
	if p.MaxAge <= 0 && p.MaxSize <= 0 {
		return GCStats{}, false, nil
	}
	if info, err := os.Stat(ws.pruneMark()); err == nil {
		since := time.Since(info.ModTime())
		over := p.MaxSize > 0 && since >= KeepRecentOverBudget && ws.st.Size() > p.MaxSize
		if since < PruneEvery && !over {
			return GCStats{}, false, nil
		}
	}
	stats, err := ws.collect(ctx, p, false, false)
	if err != nil {
		return stats, true, err
	}
	return stats, true, ws.markPruned()
}

// pruneMark is the file whose time says when retention last ran.
func (ws *Workspace) pruneMark() string { return filepath.Join(ws.st.Dir(), "pruned-at") }

func (ws *Workspace) markPruned() error {
	return os.WriteFile(ws.pruneMark(), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o600)
}
