package daemon

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/ckptdev/ckpt/integration/local"
)

// recompressShare is the share of the time the daemon spends recompressing
// a first import's contents: after each step it waits (1-share)/share of
// the step's time, so the commands and captures it serves meanwhile keep
// most of a core.
const recompressShare = 0.5

// recompress turns the contents a first import stored with its fast codec
// into zstd ones (local.Recompress, under the import's memory limit),
// paced, once the watcher is ready; a daemon stopped before the end goes
// on at its next start.
func (wd *Watched) recompress(ctx context.Context) {
	start := time.Now()
	rs, err := local.Recompress(ctx, wd.Workspace, paced(ctx, recompressShare))
	switch {
	case errors.Is(err, context.Canceled):
	case err != nil:
		wd.log(slog.LevelWarn, "recompressing the first import's contents: %v", err)
	case rs.Chunks > 0:
		wd.log(slog.LevelInfo, "recompressed the first import's contents: %d chunks, %d -> %d bytes, in %s",
			rs.Chunks, rs.Before, rs.After, time.Since(start).Round(time.Millisecond))
		// Its heap grew to the import's memory limit: an idle daemon
		// should not keep it (Run does the same after the import).
		debug.FreeOSMemory()
	}
}

// paced is the pause of a background job that works share of the time:
// called after each step, it waits (1-share)/share of the time since the
// last call, or until ctx ends.
func paced(ctx context.Context, share float64) (pause func()) {
	last := time.Now()
	return func() {
		wait := time.Duration(float64(time.Since(last)) * (1 - share) / share)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		last = time.Now()
	}
}
