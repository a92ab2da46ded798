package replica

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/plural"
	"github.com/ckptdev/ckpt/internal/statedir"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/store/remote"
)

// ErrNotReplica: the workspace shares no history with its name in the
// remote, so there is nothing a pull could go on from.
var ErrNotReplica = fault.Sentinel(fault.Refused, "no shared history")

// PullURL is the remote a pull reads: remote, else the one the workspace
// was cloned from.
func PullURL(cfg *config.Config, root string) string {
	if cfg.Remote != "" {
		return cfg.Remote
	}
	b, _ := os.ReadFile(urlFile(cfg.StateDir, root))
	return strings.TrimSpace(string(b))
}

// urlFile holds the remote a clone was cloned from.
func urlFile(stateDir, root string) string {
	return statedir.RemoteURLFile(stateDir, root)
}

// Pull brings into the workspace the checkpoints of its name in the remote
// that it lacks, and its files up to the newest of them (ckpt pull). It
// only fast-forwards: a workspace with history of its own since what it
// shares with the remote is refused (ErrDiverged) and nothing changes. The
// caller has synced the capture, so the files are the journal's head.
func Pull(ctx context.Context, cfg *config.Config, ws *snapshot.Workspace) (api.PullResult, error) {
	var out api.PullResult
	url := PullURL(cfg, ws.Root())
	if url == "" {
		return out, ErrNoRemote
	}
	r, err := Open(cfg, url)
	if err != nil {
		return out, err
	}
	name, err := Name(cfg, ws.Root())
	if err != nil {
		return out, err
	}
	out.Remote, out.Name = r.URL, name
	ms, err := r.Manifests(ctx, name)
	if err != nil {
		return out, err
	}
	newest, err := remote.Find(ms, name, "")
	if err != nil {
		return out, err
	}
	st := ws.Store()
	pos, err := remote.Position(st, r, name)
	if err != nil {
		return out, err
	}
	guard, err := pullGuard(st, r, name, ms, pos, ws.Root())
	if err != nil {
		return out, err
	}
	out.FromCheckpointID, out.CheckpointID = guard.ID, guard.ID
	out.Files = drift.RestoreResultOf(snapshot.RestoreResult{})
	if newest.Checkpoint.Ord <= pos.Ord {
		out.UpToDate = true
		cur, err := remote.ReadCursor(st, r, name)
		out.Continues = err == nil && cur.Seq == pos.Seq && cur.Seg > 0
		return out, err
	}
	if err := fastForwardOnly(st, r, name, pos, guard, ws.Root()); err != nil {
		return out, err
	}
	ext, err := r.Extend(ctx, st, name, pos, newest)
	if err != nil {
		return out, err
	}
	out.CheckpointID = newest.Checkpoint.ID
	out.Checkpoints, out.Changes, out.Blobs, out.BlobBytes, out.Continues = ext.Checkpoints, ext.Changes, ext.Blobs, ext.BlobBytes, ext.Continues
	res, err := ws.FastForward(ctx, pos.Seq, guard, newest.Checkpoint)
	out.Files = drift.RestoreResultOf(res)
	if err == nil {
		err = st.Sync()
	}
	return out, err
}

// pullGuard is the checkpoint the workspace's history shares last with the
// remote's (pos): the state of the files now, which undo gives back after
// a pull. The remote must hold it as this store does.
func pullGuard(st *store.Store, r *remote.Remote, name string, ms []remote.Manifest, pos remote.Cursor, root string) (store.Checkpoint, error) {
	if pos.Seg == 0 || pos.CheckpointID == "" {
		return store.Checkpoint{}, fmt.Errorf("%w: %s has no history in common with workspace %s in %s (it was neither cloned from it nor pushed to it): clone it into another directory",
			ErrNotReplica, root, name, r.URL)
	}
	var cp store.Checkpoint
	err := st.View(func(rd *store.Reader) (err error) {
		cp, err = rd.Checkpoint(pos.CheckpointID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return cp, fmt.Errorf("%w: %s no longer holds %s, the last checkpoint it shares with workspace %s in %s", remote.ErrDiverged, root, pos.CheckpointID, name, r.URL)
	}
	if err != nil {
		return cp, err
	}
	for _, m := range ms {
		if m.Checkpoint.Ord == pos.Ord && m.Checkpoint.ID == pos.CheckpointID {
			return cp, nil
		}
	}
	return cp, fmt.Errorf("%w: workspace %s in %s no longer holds %s, the last checkpoint %s shares with it (was the replica replaced?)", remote.ErrDiverged, name, r.URL, pos.CheckpointID, root)
}

// fastForwardOnly refuses a workspace whose history went on since pos, the
// point it shares with the remote: new journal entries or checkpoints
// (changes to the files count: every one is history), or files that are
// not at a checkpoint.
func fastForwardOnly(st *store.Store, r *remote.Remote, name string, pos remote.Cursor, guard store.Checkpoint, root string) error {
	var ord uint64
	if err := st.View(func(rd *store.Reader) (err error) { ord, err = rd.LastOrd(); return err }); err != nil {
		return err
	}
	head := st.Head()
	var cps int
	err := st.View(func(rd *store.Reader) error {
		return rd.CheckpointsAfterOrd(0, pos.Ord, func(store.Checkpoint) error { cps++; return nil })
	})
	if err != nil {
		return err
	}
	if head != pos.Seq || ord != pos.Ord {
		return fmt.Errorf("%w: %s has history of its own since %s (%s and %s that workspace %s in %s does not have): pull only fast-forwards; clone %s into another directory, or set remote_name to push this history under a name of its own",
			remote.ErrDiverged, root, pos.CheckpointID, plural.Count(int(head-min(head, pos.Seq)), "change"), plural.Count(cps, "checkpoint"), name, r.URL, name)
	}
	if guard.Seq != pos.Seq {
		return fmt.Errorf("%w: %s has changes after %s, its last checkpoint in workspace %s in %s, that no checkpoint holds: pull only fast-forwards from a checkpoint; clone %s into another directory",
			remote.ErrDiverged, root, guard.ID, name, r.URL, name)
	}
	return nil
}
