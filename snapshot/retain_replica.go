package snapshot

import (
	"sync"

	"github.com/ckptdev/ckpt/store"
)

// Why a checkpoint is pinned while the workspace replicates to a remote.
const (
	// PinUnreplicated: a checkpoint the remote does not have yet.
	PinUnreplicated = "unreplicated"
	// PinReplicationBase: the newest checkpoint the remote has, while
	// newer ones are not replicated: the journal after it, which the
	// remote still needs, is kept only while a checkpoint at or below it
	// is.
	PinReplicationBase = "replication_base"
)

// ReplicatedFunc reads, inside a retention's read transaction, how far the
// workspace's remote has it: the creation order of the newest replicated
// checkpoint, 0 before the first.
type ReplicatedFunc func(r *store.Reader) (ord uint64, err error)

// replicaHold is what retention must leave for replication (guarded by
// its own lock: the daemon changes it when its configuration reloads).
type replicaHold struct {
	mu sync.Mutex
	fn ReplicatedFunc
}

// SetReplicated makes retention keep every checkpoint the workspace's
// remote does not have yet (fn says which it has), with the history they
// need, whatever their age and the size budget; nil (no remote) lifts the
// hold.
func (ws *Workspace) SetReplicated(fn ReplicatedFunc) {
	ws.hold.mu.Lock()
	defer ws.hold.mu.Unlock()
	ws.hold.fn = fn
}

// pinUnreplicated adds to keep the checkpoints the remote still needs:
// every one after the newest replicated, and that one (the journal after
// it is not replicated yet, and pruning every checkpoint below it would
// compact that journal away).
func (ws *Workspace) pinUnreplicated(r *store.Reader, keep map[string]string) error {
	ws.hold.mu.Lock()
	fn := ws.hold.fn
	ws.hold.mu.Unlock()
	if fn == nil {
		return nil
	}
	ord, err := fn(r)
	if err != nil {
		return err
	}
	var base string
	newer := false
	err = r.Checkpoints(func(cp store.Checkpoint) (bool, error) {
		switch {
		case cp.Ord > ord:
			newer = true
			if _, ok := keep[cp.ID]; !ok {
				keep[cp.ID] = PinUnreplicated
			}
		case cp.Ord == ord:
			base = cp.ID
		}
		return true, nil
	})
	if _, ok := keep[base]; newer && base != "" && !ok {
		keep[base] = PinReplicationBase
	}
	return err
}
