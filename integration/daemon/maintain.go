package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// maintainIdleAfter is how long the store must have had no commit, and no
// run been open, before the daemon rewrites what its captures stored in
// the final encoding and gives the space of what was replaced back
// (snapshot.Workspace.MaintainIfIdle): what `ckpt gc` does besides
// pruning. CKPT_TEST_IDLE_MAINTAIN (a duration) sets it for tests and
// benchmarks.
var maintainIdleAfter = durationEnv("CKPT_TEST_IDLE_MAINTAIN", 30*time.Second)

// maintainMinBytes: the work is due once this much was committed since
// the last reclaim, or a sixteenth of the store if that is more, so that
// a large store is not flattened and its value log read again for every
// few files a capture writes.
const maintainMinBytes = 256 << 10

// maintainShare is the share of the time the maintenance spends working:
// after each step it waits as recompress does.
const maintainShare = 0.5

func durationEnv(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// maintainIdle looks every few seconds whether the store is due its
// maintenance (maintainDue), and runs it, paced; a commit (a capture, a
// checkpoint) or a run starting stops it at its next step, and it starts
// again at the next quiet spell.
func (wd *Watched) maintainIdle(ctx context.Context) {
	tick := time.NewTicker(min(2*time.Second, maintainIdleAfter/5))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if wd.maintainDue() {
			wd.maintain(ctx)
		}
	}
}

// maintainDue reports whether the store has been idle maintainIdleAfter
// with no run open, with enough written since its last reclaim.
func (wd *Watched) maintainDue() bool {
	st := wd.Workspace.Store()
	last, written := st.Idle()
	if last.IsZero() || time.Since(last) < maintainIdleAfter || len(wd.Workspace.Active().Runs) > 0 {
		return false
	}
	return written >= max(maintainMinBytes, st.Size()/16)
}

func (wd *Watched) maintain(ctx context.Context) {
	start := time.Now()
	ms, ran, err := wd.Workspace.MaintainIfIdle(ctx, paced(ctx, maintainShare))
	switch {
	case !ran, errors.Is(err, context.Canceled):
	case errors.Is(err, store.ErrMaintainStopped):
		wd.log(slog.LevelInfo, "idle maintenance stopped, work arrived: %d chunks repacked (%d -> %d bytes) in %s",
			ms.Repacked.Chunks, ms.Repacked.Before, ms.Repacked.After, time.Since(start).Round(time.Millisecond))
	case err != nil:
		wd.log(slog.LevelWarn, "idle maintenance of the store: %v", err)
	default:
		wd.log(slog.LevelInfo, "idle maintenance: %d chunks repacked (%d -> %d bytes), %d value-log files rewritten, in %s",
			ms.Repacked.Chunks, ms.Repacked.Before, ms.Repacked.After, ms.Reclaim.ValueLogFiles, time.Since(start).Round(time.Millisecond))
		debug.FreeOSMemory() // as after a recompression: the daemon is idle
	}
}
