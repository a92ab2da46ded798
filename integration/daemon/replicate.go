package daemon

import (
	"context"
	"log/slog"
	"os"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/replica"
	"github.com/ckptdev/ckpt/internal/statedir"
)

// replicate runs the workspace's continuous replication until ctx ends,
// with the remote settings in force: when a reload changes them
// (remote, remote_endpoint, remote_region, remote_key_file, remote_name,
// remote_bandwidth) the replicator stops and starts again with the new
// ones, and a removed remote stops it. The channel is closed when it has
// stopped (the store must not close under a push).
func (wd *Watched) replicate(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var prev *config.Config
		for {
			wd.live.mu.Lock()
			cfg := wd.live.cfg
			wd.live.mu.Unlock()
			if prev != nil {
				wd.replicationChanged(prev, cfg)
			}
			prev = cfg
			rctx, stop := context.WithCancel(ctx)
			stopped := wd.runReplicator(rctx, cfg)
			select {
			case <-ctx.Done():
			case <-wd.live.remoteChanged:
			}
			stop()
			<-stopped
			if ctx.Err() != nil {
				return
			}
		}
	}()
	return done
}

// runReplicator starts cfg's replicator, if cfg has a remote; the channel
// is closed when it has stopped.
func (wd *Watched) runReplicator(ctx context.Context, cfg *config.Config) <-chan struct{} {
	done := make(chan struct{})
	rp := replica.NewReplicator(cfg, wd.Workspace, wd.logger)
	if rp == nil {
		close(done)
		return done
	}
	rp.RetainSize = wd.live.retainSize.Load
	wd.replicator.Store(rp)
	go func() {
		defer close(done)
		defer wd.replicator.CompareAndSwap(rp, nil)
		rp.Run(ctx)
	}()
	return done
}

// replicationChanged logs how replication changed at a reload; a removed
// remote also takes its status file away, so status and push say that
// the workspace does not replicate.
func (wd *Watched) replicationChanged(old, cfg *config.Config) {
	switch {
	case cfg.Remote == "" && old.Remote != "":
		os.Remove(statedir.ReplicationFile(cfg.StateDir, wd.Workspace.Root()))
		wd.log(slog.LevelInfo, "replication to %s stopped: no remote is configured", old.Remote)
	case cfg.Remote != "":
		wd.log(slog.LevelInfo, "replication restarted with the new settings: remote %s, remote_endpoint %q, remote_region %q, remote_key_file %q, remote_name %q, remote_bandwidth %d",
			cfg.Remote, cfg.RemoteEndpoint, cfg.RemoteRegion, cfg.RemoteKeyFile, cfg.RemoteName, cfg.RemoteBandwidth)
	}
}
