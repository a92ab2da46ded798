package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/store"
)

// ErrRefused is a write a restore refused to make: through a symlink, or
// outside the workspace (of kind fault.Refused).
var ErrRefused = fault.Sentinel(fault.Refused, "restore refused")

// RestoreOptions scope a restore.
type RestoreOptions struct {
	// Paths limits the restore to these paths and what lies under them.
	Paths Filter
	// Policy, if set, decides which of the changed paths in scope the
	// restore takes back; nil takes back every one it can (an exact
	// restore).
	Policy RestorePolicy
	// DryRun plans and reports without writing anything.
	DryRun bool
	// CurrentID, if set, becomes the current checkpoint instead of the
	// target (undo puts back the one that was current before the restore).
	CurrentID string
}

// RestorePolicy is the caller's say in a restore's plan: which of the
// paths that changed since the target it takes back. The mechanism (the
// state at the target, what cannot be read or was not stored, what a
// symlink would redirect) stays the restore's.
type RestorePolicy interface {
	// Note is told of every journal entry the plan reads, as Diff's keep
	// is, and says whether it counts.
	Note(store.Change) bool
	// Decide says of one changed path why the restore leaves it as it is
	// ("" to take it back), and whether taking it back is a conflict (it
	// undoes changes of more than one party), reported with it.
	Decide(FileChange) (keep string, conflict bool)
}

// RestoreItem is one change a restore made (or would make).
type RestoreItem struct {
	Path     string
	Kind     store.ChangeKind // what the restore did to the path
	Conflict bool             // the policy says taking it back is a conflict
	Err      error            // the write failed; the path is as it was
}

// KeptItem is a path that changed since the target but was left alone.
type KeptItem struct {
	Path string
	Kind store.ChangeKind // how it changed since the target
	Why  string
}

// RefusedItem is a path in scope that the restore could not write safely
// (it lies behind a symlink on disk), so it was left as it is.
type RefusedItem struct {
	Path string
	Kind store.ChangeKind // what the restore would have done to it
	Why  string
}

// RestoreResult is what a restore did. Guard is zero for a dry run and
// for a restore that had nothing to write (see putUnchanged).
type RestoreResult struct {
	Target   store.Checkpoint
	Guard    store.Checkpoint
	Restored []RestoreItem
	Kept     []KeptItem
	Refused  []RefusedItem
	DryRun   bool
}

// Restore brings the paths in scope back to their state at target. The
// caller syncs the capture first. The restore is planned, and the paths it
// cannot write safely are refused (listed, left alone); a
// pre_restore_guard checkpoint and the rest of the plan, as an intent, are
// made durable together; the plan is applied through os.Root, recorded in
// the journal as the restore's own changes, and the target becomes the
// current checkpoint (see the package doc for why each step waits for what
// it waits for). A restore with nothing to write cuts no guard and leaves
// the last restore as it was (see putUnchanged).
func (ws *Workspace) Restore(ctx context.Context, target store.Checkpoint, opts RestoreOptions) (RestoreResult, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	res := RestoreResult{Target: target, DryRun: opts.DryRun}
	if err := ws.checkNotPruned(target); err != nil {
		return res, err
	}
	var note func(store.Change) bool
	if opts.Policy != nil {
		note = opts.Policy.Note
	}
	changes, err := ws.driftAt(ws.st.Head(), target, opts.Paths, note)
	if err != nil {
		return res, err
	}
	var actions []store.IntentAction
	actions, res.Restored, res.Kept = ws.plan(changes, target, opts)
	actions, res.Restored, res.Refused = ws.refuseUnsafe(actions, res.Restored)
	if opts.DryRun {
		return res, nil
	}
	settle := settleFor(opts, res)
	if len(actions) == 0 {
		return res, ws.putUnchanged(target, opts, settle)
	}
	in, guard, err := ws.persistIntent(target, opts, actions)
	if err != nil {
		return res, err
	}
	res.Guard = guard
	err = ws.applyGuarded(in, opts.Paths, settle, &res)
	return res, err
}

// applyGuarded applies a restore (or revert) whose guard is cut and whose
// intent is persisted: it tells of the guard, writes the intent's paths,
// marks each item of res that failed, and tells of the changes and of the
// restore.
func (ws *Workspace) applyGuarded(in store.Intent, paths Filter, settle *settled, res *RestoreResult) error {
	ws.emit(Event{Type: "checkpoint", Checkpoint: &res.Guard})
	head := ws.st.Head()
	failed, err := ws.finish(in, paths, settle)
	for i := range res.Restored {
		res.Restored[i].Err = failed[res.Restored[i].Path]
	}
	ws.emitChanges(head, ws.st.Head())
	ws.emit(Event{Type: "restore", Restore: res})
	return err
}

// plan turns the changes since the target into the actions that undo
// them, and the paths the restore keeps as they are, with why.
func (ws *Workspace) plan(changes []FileChange, target store.Checkpoint, opts RestoreOptions) ([]store.IntentAction, []RestoreItem, []KeptItem) {
	var actions []store.IntentAction
	var restored []RestoreItem
	var kept []KeptItem
	for _, fc := range changes {
		why := ws.unreadableWhy(fc.Path, target)
		conflict := false
		if why == "" && opts.Policy != nil {
			why, conflict = opts.Policy.Decide(fc)
		}
		switch {
		case why != "":
		case fc.From.Exists() && !fc.From.Stored:
			why = "its content at the checkpoint is not stored (larger than max_file_size or unreadable)"
		case fc.To.Exists() && !fc.To.Stored:
			why = "its current content is not stored (larger than max_file_size or unreadable), so replacing it could not be undone"
		}
		if why != "" {
			kept = append(kept, KeptItem{Path: fc.Path, Kind: fc.Kind, Why: why})
			continue
		}
		actions = append(actions, store.IntentAction{Path: fc.Path, State: fc.From, Before: &fc.To})
		restored = append(restored, RestoreItem{Path: fc.Path, Kind: inverse(fc.Kind), Conflict: conflict})
	}
	return actions, restored, kept
}

// settleFor is where a restore over the whole workspace leaves it: every
// changed path was planned, and nothing else journals while ws.mu is held,
// so once the restore has journaled its writes the workspace differs from
// the target only where it kept or refused a path (or could not write
// one, which finish adds). nil for a restore of some paths, or an undo.
func settleFor(opts RestoreOptions, res RestoreResult) *settled {
	if opts.Paths != nil || opts.CurrentID != "" {
		return nil
	}
	settle := &settled{}
	for _, k := range res.Kept {
		settle.paths = append(settle.paths, k.Path)
	}
	for _, r := range res.Refused {
		settle.paths = append(settle.paths, r.Path)
	}
	return settle
}

// putUnchanged ends a restore that had nothing to write: the disk is the
// target already, but for the paths kept or refused. The target becomes
// current (or opts.CurrentID, for an undo) as after any restore, but no
// guard is cut and the last restore stays what it was: there is nothing
// to undo, and undo still undoes the last restore that wrote something.
func (ws *Workspace) putUnchanged(target store.Checkpoint, opts RestoreOptions, settle *settled) error {
	cur := target
	if opts.CurrentID != "" {
		err := ws.st.View(func(r *store.Reader) (err error) {
			cur, err = r.Checkpoint(opts.CurrentID)
			return err
		})
		if err != nil {
			return err
		}
	}
	return ws.st.Write(func(w *store.Writer) error {
		s, err := w.Workspace()
		if err == nil && s.CurrentCheckpointID == cur.ID && settle == nil {
			return nil // keep what is known of where it settled
		}
		return ws.putCurrent(w, cur, settle.at(w.Head(), nil, nil))
	})
}

func inverse(k store.ChangeKind) store.ChangeKind {
	switch k {
	case store.Added:
		return store.Deleted
	case store.Deleted:
		return store.Added
	}
	return k
}

// refuseUnsafe takes out of the plan every action that would write
// through a symlink on disk that the plan itself does not remove first: no
// write may be redirected, inside the workspace or out of it. It returns
// the actions and items left, and the refused ones. One pass is enough:
// the directories above a path are checked from the top, so a symlink the
// plan removes can only be refused itself for a symlink above it, which
// refuses everything below it too.
func (ws *Workspace) refuseUnsafe(actions []store.IntentAction, items []RestoreItem) ([]store.IntentAction, []RestoreItem, []RefusedItem) {
	removed := map[string]bool{}
	for _, a := range actions {
		if !a.State.Exists() || a.State.Kind == store.Symlink {
			removed[a.Path] = true
		}
	}
	refused := []RefusedItem{}
	var keepActs []store.IntentAction
	var keepItems []RestoreItem
	seen := map[string]dirKind{}
	for i, a := range actions {
		if link := ws.symlinkAbove(a.Path, removed, seen); link != "" {
			refused = append(refused, RefusedItem{Path: a.Path, Kind: items[i].Kind,
				Why: fmt.Sprintf("it lies behind the symlink %s: writing it would write wherever %s points", link, link)})
			continue
		}
		keepActs, keepItems = append(keepActs, a), append(keepItems, items[i])
	}
	return keepActs, keepItems, refused
}

// symlinkAbove is the nearest directory of p (from the root down) that is
// a symlink on disk, unless the plan removes it (or a directory above it)
// first; "" if there is none. seen remembers what each directory is, so
// that a plan's paths share their directories' lstats.
func (ws *Workspace) symlinkAbove(p string, removed map[string]bool, seen map[string]dirKind) string {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if removed[dir] {
			return ""
		}
		kind, ok := seen[dir]
		if !ok {
			kind = dirOther
			if info, err := lstatRel(ws.root, dir); err != nil {
				kind = dirMissing
			} else if info.Mode()&os.ModeSymlink != 0 {
				kind = dirSymlink
			}
			seen[dir] = kind
		}
		switch kind {
		case dirMissing:
			return ""
		case dirSymlink:
			return dir
		}
	}
	return ""
}

// dirKind is what symlinkAbove found at a directory of a path.
type dirKind uint8

const (
	dirOther   dirKind = iota // a directory, or a file (the write fails there)
	dirMissing                // not there (or not readable): nothing below it is either
	dirSymlink
)

// finishIntent completes a restore that a crash (or a power cut that lost
// the restore's last, unsynced commit) interrupted. Paths written since
// the restore are left as they are (unfinished).
func (ws *Workspace) finishIntent() error {
	var in store.Intent
	err := ws.st.View(func(r *store.Reader) (err error) {
		in, err = r.Intent()
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(ws.root)
	if err != nil {
		return err
	}
	removeStaleTemps(root, in.Actions)
	in.Actions, _ = ws.unfinished(root, in.Actions)
	root.Close()
	_, err = ws.finish(in, in.Paths, nil)
	return err
}

// settled is where a restore left the workspace equal to its target but
// for some paths (store.WorkspaceState.SettledSeq).
type settled struct {
	seq   uint64
	paths []string
}

// finish applies an intent, records what it wrote, moves the current
// checkpoint and deletes the intent. Applying is idempotent, so a crash
// anywhere in it is mended by running it again. settle, if set, is recorded
// with the new current checkpoint at the head after the restore's own
// entries, with the paths it could not write or record added.
func (ws *Workspace) finish(in store.Intent, paths Filter, settle *settled) (map[string]error, error) {
	failed, err := ws.apply(in.Actions)
	if err != nil {
		return failed, err
	}
	target := store.Checkpoint{ID: in.TargetID}
	err = ws.st.View(func(r *store.Reader) (err error) {
		target, err = r.Checkpoint(in.TargetID)
		return err
	})
	if err != nil {
		return failed, err
	}
	err = ws.st.Write(func(w *store.Writer) error {
		now := time.Now()
		var unrecorded []string
		for _, a := range in.Actions {
			if failed[a.Path] != nil {
				continue
			}
			recorded, err := ws.recordRestored(w, a, now)
			if err != nil {
				return err
			}
			if !recorded {
				unrecorded = append(unrecorded, a.Path)
			}
		}
		if err := ws.putCurrent(w, target, settle.at(w.Head(), failed, unrecorded)); err != nil {
			return err
		}
		lr := store.LastRestore{TargetID: in.TargetID, GuardID: in.GuardID, PrevID: in.PrevID, Paths: paths, At: now.UTC()}
		if err := w.PutLastRestore(lr); err != nil {
			return err
		}
		return w.DeleteIntent()
	})
	// Not synced: losing this commit loses nothing. apply made every change
	// durable, and the intent, durable since before the first change,
	// brings the commit back at the next Open (finishIntent). Whatever is
	// synced next (any checkpoint) makes it durable with it.
	return failed, err
}

// recordRestored journals a path the restore wrote, with the stat tuple
// the disk now has, so that the watcher's events for it change nothing.
// It reports false if the path was gone again before it could be recorded.
func (ws *Workspace) recordRestored(w *store.Writer, a store.IntentAction, now time.Time) (recorded bool, err error) {
	prev, had, err := w.Entry(a.Path)
	if err != nil {
		return false, err
	}
	next := store.State{}
	if a.State.Exists() {
		info, err := lstatRel(ws.root, a.Path)
		if err != nil {
			return false, nil // gone again already: the next capture records that
		}
		next = statState(info)
		next.Hash, next.Stored, next.Recorded = a.State.Hash, true, now.UnixNano()
	}
	if had && prev.SameContent(next) {
		if !next.Exists() {
			return true, nil
		}
		next.Seq = prev.Seq
		return true, w.Touch(a.Path, next)
	}
	if !had && !next.Exists() {
		return true, nil
	}
	kind := store.Modified
	switch {
	case !had:
		kind = store.Added
	case !next.Exists():
		kind = store.Deleted
	}
	_, err = w.Record(store.Change{Path: a.Path, Kind: kind, State: next, Attr: store.Attr{Restore: true}, Time: now.UnixNano()},
		roll(w.Fingerprint(), a.Path, prev, next))
	return err == nil, err
}

// at is s settled at seq, with the paths that failed or went unrecorded
// added; nil when there is nothing to record or too much.
func (s *settled) at(seq uint64, failed map[string]error, unrecorded []string) *settled {
	if s == nil || len(s.paths)+len(failed)+len(unrecorded) > maxUnsettled {
		return nil
	}
	out := &settled{seq: seq, paths: append(s.paths, unrecorded...)}
	for p := range failed {
		out.paths = append(out.paths, p)
	}
	return out
}
