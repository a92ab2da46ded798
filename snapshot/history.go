package snapshot

import (
	"errors"
	"fmt"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/store"
)

// Version is one version of a path: the journal entry that wrote it and a
// position to bring it back from.
type Version struct {
	Seq   uint64
	State store.State // what the path held from Seq on (Absent: deleted)
	// Change is the journal entry; Pruned when retention has forgotten it
	// (only the state is known then, and Change has just Seq and Path).
	Change store.Change
	Pruned bool
	// Checkpoint holds exactly this version: the first checkpoint at or
	// after Seq, if it is before the path's next version. Zero if none is.
	Checkpoint store.Checkpoint
	// At is a journal position that holds this version (Seq, or the
	// history floor when the entry was pruned): RestoreAt(At) brings it
	// back.
	At uint64
}

// History lists the versions of one path, newest first, at most n of them
// (all if n <= 0): one reverse range scan of the path index.
func (ws *Workspace) History(p string, n int) ([]Version, error) {
	var out []Version
	err := ws.st.View(func(r *store.Reader) error {
		floor, err := historyFloor(r)
		if err != nil {
			return err
		}
		next := ws.st.Head() + 1 // the next version's seq
		return r.Versions(p, func(seq uint64, st store.State) (bool, error) {
			v := Version{Seq: seq, State: st, At: max(seq, floor)}
			c, err := r.Change(seq)
			switch {
			case errors.Is(err, store.ErrNotFound):
				v.Pruned, v.Change = true, store.Change{Seq: seq, Path: p}
			case err != nil:
				return false, err
			default:
				v.Change = c
			}
			cp, err := r.CheckpointFrom(seq)
			if err == nil && cp.Seq < next {
				v.Checkpoint = cp
			} else if err != nil && !errors.Is(err, store.ErrNotFound) {
				return false, err
			}
			out = append(out, v)
			next = seq
			return n <= 0 || len(out) < n, nil
		})
	})
	return out, err
}

// historyFloor is the lowest journal position whose state is still known
// exactly: 0 until retention has forgotten history, else the position of
// the oldest checkpoint left.
func historyFloor(r *store.Reader) (uint64, error) {
	cp, err := r.OldestCheckpoint()
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if cp.Ord <= 1 {
		return 0, nil // the first checkpoint is left: nothing was forgotten
	}
	return cp.Seq, nil
}

// ErrBadVersion is a journal position that is not one a restore can read:
// beyond the head, or forgotten by retention (of kind fault.Invalid).
var ErrBadVersion = fault.Sentinel(fault.Invalid, "bad version")

// VersionTarget is the restore target that stands for journal position
// seq, as a checkpoint with no id: Restore(VersionTarget(seq), ...) brings
// the paths back to their state at seq. It must be after the history
// floor and at most the head.
func (ws *Workspace) VersionTarget(seq uint64) (store.Checkpoint, error) {
	head := ws.st.Head()
	if seq == 0 || seq > head {
		return store.Checkpoint{}, fault.Mark(fmt.Errorf("version @%d does not exist (the journal is at @%d)", seq, head), ErrBadVersion)
	}
	var floor uint64
	err := ws.st.View(func(r *store.Reader) (err error) {
		floor, err = historyFloor(r)
		return err
	})
	if err != nil {
		return store.Checkpoint{}, err
	}
	if seq < floor {
		return store.Checkpoint{}, fault.Mark(fmt.Errorf("version @%d was pruned (history starts at @%d)", seq, floor), ErrBadVersion)
	}
	return store.Checkpoint{Seq: seq}, nil
}
