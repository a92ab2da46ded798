package daemon

import (
	"context"

	"github.com/ckptdev/ckpt/integration/replica"
)

// replicate runs the workspace's continuous replication, when it has a
// remote, until ctx ends; the channel is closed when it has stopped (the
// store must not close under a push).
func (wd *Watched) replicate(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	wd.live.mu.Lock()
	cfg := wd.live.cfg
	wd.live.mu.Unlock()
	rp := replica.NewReplicator(cfg, wd.Workspace, wd.logger)
	if rp == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		rp.Run(ctx)
	}()
	return done
}
