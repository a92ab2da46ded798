package replica

import (
	"context"
	"log/slog"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/store/remote"
)

// Limits of the daemon's replication, variables so that tests can shrink
// them.
var (
	// PollInterval is how often the replicator looks for something new.
	PollInterval = time.Second
	// MinBackoff and MaxBackoff bound the wait after a failed push; it
	// doubles from the one to the other.
	MinBackoff = time.Second
	MaxBackoff = time.Minute
)

// Replicator replicates one workspace continuously: it pushes whenever the
// store has something the remote lacks, and after a failure waits
// (doubling from MinBackoff to MaxBackoff) and tries again. It reads the
// store on its own, so capture and checkpoints never wait for it; what is
// not yet uploaded waits in the journal itself, so nothing is queued in
// memory beyond one segment and the contents in flight.
type Replicator struct {
	cfg    *config.Config
	ws     *snapshot.Workspace
	logger *slog.Logger
	kick   chan struct{}
	// RetainSize, if set, is the retention_size in force (the daemon
	// reloads it while it runs); else cfg's.
	RetainSize func() int64
}

func (rp *Replicator) budget() int64 {
	if rp.RetainSize != nil {
		return rp.RetainSize()
	}
	return rp.cfg.RetentionSize
}

// NewReplicator makes the replicator of ws with cfg's remote; nil if cfg
// has none.
func NewReplicator(cfg *config.Config, ws *snapshot.Workspace, logger *slog.Logger) *Replicator {
	if cfg.Remote == "" {
		return nil
	}
	return &Replicator{cfg: cfg, ws: ws, logger: logger, kick: make(chan struct{}, 1)}
}

// Kick asks for a push now.
func (rp *Replicator) Kick() {
	select {
	case rp.kick <- struct{}{}:
	default:
	}
}

// Run replicates until ctx ends.
func (rp *Replicator) Run(ctx context.Context) {
	root := rp.ws.Root()
	p, err := pusher(rp.cfg, rp.ws)
	if err != nil {
		rp.logger.Error(root+": replication disabled", "err", err)
		writeStatus(rp.cfg.StateDir, root, api.Replication{Remote: rp.cfg.Remote, LastError: err.Error(), LastAttempt: time.Now().UTC()})
		return
	}
	st := api.Replication{}
	if old := ReadStatus(rp.cfg.StateDir, root); old != nil && old.Remote == rp.cfg.Remote {
		st.LastSuccess = old.LastSuccess
	}
	// Status says how far behind replication is from the start, at every
	// attempt, and after every segment stored.
	report := func() {
		if err := progress(rp.ws.Store(), p.Remote, p.Name, rp.budget(), &st); err != nil {
			rp.logger.Warn(root+": replication status", "err", err)
		}
		if err := writeStatus(rp.cfg.StateDir, root, st); err != nil {
			rp.logger.Warn(root+": replication status", "err", err)
		}
	}
	p.Stored = func(remote.Cursor) { report() }
	report()
	backoff := time.Duration(0)
	var seen [2]uint64 // the head and checkpoint order last pushed
	var pushed time.Time
	for {
		wait, kick := PollInterval, rp.kick
		if backoff > 0 {
			// A failed remote is not asked again before its backoff
			// ends, however many checkpoints are cut meanwhile.
			wait, kick = backoff, nil
		}
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-time.After(wait):
		}
		now := [2]uint64{rp.ws.Store().Head(), lastOrd(rp.ws.Store())}
		// Nothing new: push only to renew the lease.
		if backoff == 0 && now == seen && time.Since(pushed) < leaseRenewal {
			continue
		}
		pushed = time.Now()
		st.LastAttempt = time.Now().UTC()
		// What this push is about to upload counts as behind until it is
		// stored: the report at start may predate it (a first import).
		report()
		_, err := p.Push(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			backoff = next(backoff, err)
			st.LastError, st.NextRetry = err.Error(), time.Now().Add(backoff).UTC()
			rp.logger.Warn(root+": replication failed; retrying", "in", backoff, "err", err)
		} else {
			if st.LastError != "" {
				rp.logger.Info(root + ": replication resumed")
			}
			backoff, seen = 0, now
			st.LastError, st.NextRetry, st.LastSuccess = "", time.Time{}, time.Now().UTC()
		}
		report()
	}
}

// leaseRenewal: an idle workspace's lease (10 minutes) is renewed this
// often.
const leaseRenewal = 3 * time.Minute

func next(backoff time.Duration, err error) time.Duration {
	if isRefused(err) {
		return MaxBackoff
	}
	return min(max(2*backoff, MinBackoff), MaxBackoff)
}

func lastOrd(st *store.Store) uint64 {
	var ord uint64
	st.View(func(r *store.Reader) (err error) { ord, err = r.LastOrd(); return err })
	return ord
}
