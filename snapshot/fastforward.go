package snapshot

import (
	"context"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// FastForward brings the files up to a history imported past them: the
// files are the journal's state at seq from, and the journal has since
// been extended (store/remote's Extend, for ckpt pull) through target,
// its newest entry, without touching them. Every path that changed after
// from is written as target has it, the way a restore writes: the plan,
// as an intent, is made durable first, each write goes through os.Root
// and is made durable, and the stat tuples the disk then has are
// recorded, so the next scan reads nothing. The imported journal holds the
// changes already: none is journalled. guard, a checkpoint whose state is
// the files' at from, becomes the last restore's guard, so that undo gives
// the files back as they were. A path whose content at target is not
// stored, or that lies behind a symlink on disk, is left as it is (Kept,
// Refused). The caller syncs the capture first, so the files are the
// journal's state at from.
func (ws *Workspace) FastForward(ctx context.Context, from uint64, guard, target store.Checkpoint) (RestoreResult, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	res := RestoreResult{Target: target, Guard: guard}
	head := ws.st.Head()
	var changes []FileChange
	err := ws.st.View(func(r *store.Reader) error {
		t := newTouched(head - min(from, head))
		if err := t.collect(r, from, head, nil, nil); err != nil {
			return err
		}
		var err error
		changes, err = t.resolve(r, from, head)
		return err
	})
	if err != nil {
		return res, err
	}
	var actions []store.IntentAction
	for _, fc := range changes {
		if fc.To.Exists() && !fc.To.Stored {
			res.Kept = append(res.Kept, KeptItem{Path: fc.Path, Kind: fc.Kind, Why: "its content at " + target.ID + " is not stored (larger than max_file_size or unreadable)"})
			continue
		}
		before := fc.From
		actions = append(actions, store.IntentAction{Path: fc.Path, State: fc.To, Before: &before})
		res.Restored = append(res.Restored, RestoreItem{Path: fc.Path, Kind: fc.Kind})
	}
	actions, res.Restored, res.Refused = ws.refuseUnsafe(actions, res.Restored)
	settle := settleFor(RestoreOptions{}, res)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if len(actions) == 0 {
		res.Guard = store.Checkpoint{}
		return res, ws.st.Write(func(w *store.Writer) error {
			return ws.putCurrent(w, target, settle.at(w.Head(), nil, nil))
		})
	}
	in := store.Intent{TargetID: target.ID, GuardID: guard.ID, Actions: actions, CreatedAt: time.Now().UTC()}
	err = ws.st.Write(func(w *store.Writer) error {
		if s, err := w.Workspace(); err == nil {
			in.PrevID = s.CurrentCheckpointID
		}
		return w.PutIntent(in)
	})
	if err == nil {
		err = ws.st.Sync()
	}
	if err != nil {
		return res, err
	}
	failed, err := ws.finish(in, nil, settle)
	for i := range res.Restored {
		res.Restored[i].Err = failed[res.Restored[i].Path]
	}
	ws.emitChanges(from, ws.st.Head())
	ws.emit(Event{Type: "restore", Restore: &res})
	return res, err
}
