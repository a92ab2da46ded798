package daemon

import (
	"context"
	"log/slog"
	"time"
)

// flushIdleAfter is how long the store must have had no commit before the
// daemon flushes its memtables (store.FlushIdle); it looks five times as
// often, so that the flush comes at most a fifth of that late.
var flushIdleAfter = 10 * time.Second

// flushIdle flushes the store's memtables to its LSM tree whenever it has
// been idle flushIdleAfter since enough was committed: otherwise what a
// session writes stays in the memtable's log, uncompressed, until a
// memtable fills (most sessions never fill one) or the daemon stops.
func (wd *Watched) flushIdle(ctx context.Context) {
	tick := time.NewTicker(flushIdleAfter / 5)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := wd.Workspace.Store().FlushIdle(flushIdleAfter); err != nil {
			wd.log(slog.LevelWarn, "flushing the store's memtables: %v", err)
		}
	}
}
