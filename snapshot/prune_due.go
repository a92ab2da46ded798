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

// PruneDue applies a retention (0: keep everything) if the last prune is
// older than PruneEvery. It remembers when it ran in a file next to the
// store, so the daemon and the embedded client share the schedule.
func (ws *Workspace) PruneDue(ctx context.Context, retention time.Duration) (PruneStats, bool, error) {
	if retention <= 0 {
		return PruneStats{}, false, nil
	}
	mark := filepath.Join(ws.st.Dir(), "pruned-at")
	if info, err := os.Stat(mark); err == nil && time.Since(info.ModTime()) < PruneEvery {
		return PruneStats{}, false, nil
	}
	stats, err := ws.Prune(ctx, time.Now().Add(-retention))
	if err != nil {
		return stats, true, err
	}
	return stats, true, os.WriteFile(mark, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o600)
}
