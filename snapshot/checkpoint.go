package snapshot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/ckptdev/ckpt/internal/ckptid"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/store"
)

// Checkpoint reasons.
const (
	ReasonInitial           = "initial"
	ReasonManual            = "manual"
	ReasonPreRunDriftRebase = "pre_run_drift_rebase"
	ReasonPreWrite          = "pre_write"
	ReasonEndOfTurn         = "end_of_turn"
	ReasonPreRestoreGuard   = "pre_restore_guard"
)

// ErrBadID is a checkpoint id that is malformed or unknown (of kind
// fault.Invalid).
var ErrBadID = fault.Sentinel(fault.Invalid, "bad checkpoint id")

// ValidID reports whether id has the form of a checkpoint id (ckptid.Valid).
func ValidID(id string) bool { return ckptid.Valid(id) }

// Cut records a checkpoint at the journal's head. The caller syncs the
// capture first (so the head includes every change made before the call);
// Cut makes the checkpoint durable before it returns.
func (ws *Workspace) Cut(reason, message string, attr store.Attr) (store.Checkpoint, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.cut(reason, message, attr)
}

func (ws *Workspace) cut(reason, message string, attr store.Attr) (store.Checkpoint, error) {
	var cp store.Checkpoint
	err := ws.st.Write(func(w *store.Writer) (err error) {
		cp, err = putCheckpoint(w, reason, message, attr, ws.unreadable.paths())
		return err
	})
	if err != nil {
		return cp, err
	}
	if err := ws.st.Sync(); err != nil {
		return cp, err
	}
	ws.emit(Event{Type: "checkpoint", Checkpoint: &cp})
	return cp, nil
}

// putCheckpoint writes a checkpoint at w's journal head; the caller syncs
// (a restore commits its guard with its intent and syncs them together).
// unreadable are the paths whose state at it is unknown.
func putCheckpoint(w *store.Writer, reason, message string, attr store.Attr, unreadable []string) (store.Checkpoint, error) {
	return putCheckpointAt(w, w.Head(), w.Fingerprint(), reason, message, attr, unreadable)
}

// putCheckpointAt writes a checkpoint at journal seq, whose fingerprint
// is fp.
func putCheckpointAt(w *store.Writer, seq uint64, fp store.Fingerprint, reason, message string, attr store.Attr, unreadable []string) (store.Checkpoint, error) {
	ord, err := w.NextOrd()
	if err != nil {
		return store.Checkpoint{}, err
	}
	cp := store.Checkpoint{
		ID:          newID(ord),
		Seq:         seq,
		Reason:      reason,
		CreatedAt:   time.Now().UTC(),
		Session:     attr.Session,
		Run:         attr.Run,
		Call:        attr.Call,
		Message:     message,
		Fingerprint: fp.Sum,
		Files:       fp.Count,
		Unreadable:  unreadable,
	}
	return cp, w.PutCheckpoint(&cp)
}

// newID makes a checkpoint id: its creation order, for people, and random
// bits, so that ids are unique even across a store's re-creation.
func newID(ord uint64) string {
	var b [3]byte
	rand.Read(b[:])
	return fmt.Sprintf("ck%d-%s", ord, hex.EncodeToString(b[:]))
}

// Checkpoint looks up a checkpoint; a malformed or unknown id is ErrBadID.
func (ws *Workspace) Checkpoint(id string) (store.Checkpoint, error) {
	if !ValidID(id) {
		return store.Checkpoint{}, fault.Mark(fmt.Errorf("%q is not a checkpoint id", id), ErrBadID)
	}
	var cp store.Checkpoint
	err := ws.st.View(func(r *store.Reader) (err error) {
		cp, err = r.Checkpoint(id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return cp, fault.Mark(fmt.Errorf("no checkpoint %q in %s", id, ws.root), ErrBadID)
	}
	return cp, err
}

// Checkpoints lists up to n checkpoints (all if n <= 0), newest first.
func (ws *Workspace) Checkpoints(n int) ([]store.Checkpoint, error) {
	var out []store.Checkpoint
	err := ws.st.View(func(r *store.Reader) error {
		return r.Checkpoints(func(cp store.Checkpoint) (bool, error) {
			out = append(out, cp)
			return n <= 0 || len(out) < n, nil
		})
	})
	return out, err
}

// CheckpointBefore is the newest checkpoint whose seq is below seq.
func (ws *Workspace) CheckpointBefore(seq uint64) (store.Checkpoint, error) {
	var cp store.Checkpoint
	err := ws.st.View(func(r *store.Reader) (err error) {
		cp, err = r.CheckpointBefore(seq)
		return err
	})
	return cp, err
}

// SetCurrent makes cp the workspace's current checkpoint.
func (ws *Workspace) SetCurrent(cp store.Checkpoint) error {
	return ws.Update(func(tx *Tx) error { return tx.SetCurrent(cp) })
}

// putCurrent makes cp current; settle, if set, says where the workspace
// last equalled it (see Drift).
func (ws *Workspace) putCurrent(w *store.Writer, cp store.Checkpoint, settle *settled) error {
	s := store.WorkspaceState{
		WorkspaceKey:        ws.key,
		Root:                ws.root,
		CurrentCheckpointID: cp.ID,
		UpdatedAt:           time.Now().UTC(),
	}
	if settle != nil {
		s.SettledSeq, s.Unsettled = settle.seq, settle.paths
	}
	return w.PutWorkspace(s)
}

// Current is the workspace's current checkpoint.
func (ws *Workspace) Current() (store.Checkpoint, error) {
	var cp store.Checkpoint
	err := ws.st.View(func(r *store.Reader) error {
		s, err := r.Workspace()
		if err != nil {
			return err
		}
		cp, err = r.Checkpoint(s.CurrentCheckpointID)
		return err
	})
	return cp, err
}

// Import captures the whole workspace for the first time (walk lists it)
// and cuts the initial checkpoint, which becomes current. It does nothing
// if the workspace was imported already.
func (ws *Workspace) Import(ctx context.Context, walk WalkFunc) (store.Checkpoint, bool, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var have bool
	err := ws.st.View(func(r *store.Reader) error {
		_, err := r.Workspace()
		have = err == nil
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil || have {
		return store.Checkpoint{}, false, err
	}
	scan := ws.importStream
	if ws.st.Fingerprint().Count > 0 { // an import cut short: compare with what it stored
		scan = func(ctx context.Context, walk WalkFunc) error {
			return ws.reconcile(ctx, walk, "", store.Attr{}, false)
		}
	}
	if err := scan(ctx, walk); err != nil {
		return store.Checkpoint{}, false, err
	}
	// The initial checkpoint and the state that makes it current are one
	// commit: a crash leaves the workspace imported or not, never with an
	// initial checkpoint that the next Import would cut again.
	var cp store.Checkpoint
	err = ws.st.Write(func(w *store.Writer) (err error) {
		if cp, err = putCheckpoint(w, ReasonInitial, "", store.Attr{}, ws.unreadable.paths()); err != nil {
			return err
		}
		return ws.putCurrent(w, cp, nil)
	})
	if err != nil {
		return cp, false, err
	}
	if err := ws.st.Sync(); err != nil {
		return cp, false, err
	}
	ws.emit(Event{Type: "checkpoint", Checkpoint: &cp})
	return cp, true, nil
}
