package snapshot

import (
	"context"
	"sort"

	"github.com/ckptdev/ckpt/store"
)

// RevertOptions say whose changes a revert undoes.
type RevertOptions struct {
	// From and To bound the journal entries to undo: those in (From, To]
	// that Mine selects (a run's or a tool call's).
	From, To uint64
	Mine     func(store.Change) bool
	// Force restores conflicting paths too.
	Force bool
	// DryRun plans and reports without writing anything.
	DryRun bool
	// Message is the guard checkpoint's.
	Message string
}

// Conflict is a path that something other than Mine changed after Mine's
// first change to it, so that reverting it would undo that change too.
type Conflict struct {
	Path string
	Kind store.ChangeKind // what reverting it does
	// By is the newest such change. Interleaved: it came between Mine's
	// own changes to the path (else after the last of them).
	By          store.Change
	Interleaved bool
}

// RevertResult is what a revert did. Restored and Kept are as a restore's;
// a conflict is in Restored too when it was forced.
type RevertResult struct {
	RestoreResult
	Conflicts []Conflict
}

// revertPath is one path Mine changed.
type revertPath struct {
	first, last uint64 // Mine's first and last entry for it
}

// Revert undoes exactly the changes Mine made in (From, To]: each path it
// changed goes back to its state just before Mine first changed it. A path
// that something else changed after Mine's first change to it, and that
// does not now hold what Mine left, is a conflict: left alone unless
// Force. It is a restore like any other (plan, guard and intent, apply,
// record), undoable through the guard; the current checkpoint stays as it
// is. A revert that would change nothing cuts no guard.
func (ws *Workspace) Revert(ctx context.Context, opts RevertOptions) (RevertResult, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	res := RevertResult{RestoreResult: RestoreResult{DryRun: opts.DryRun}}
	var actions []store.IntentAction
	err := ws.st.View(func(r *store.Reader) error {
		s, err := r.Workspace()
		if err != nil {
			return err
		}
		if res.Target, err = r.Checkpoint(s.CurrentCheckpointID); err != nil {
			return err
		}
		actions, err = ws.planRevert(r, opts, &res)
		return err
	})
	if err != nil {
		return res, err
	}
	actions, res.Restored, res.Refused = ws.refuseUnsafe(actions, res.Restored)
	if len(actions) == 0 || opts.DryRun {
		return res, nil
	}
	in := store.Intent{TargetID: res.Target.ID, Actions: actions}
	for _, a := range actions {
		in.Paths = append(in.Paths, a.Path)
	}
	in, res.Guard, err = ws.persistGuarded(in, opts.Message)
	if err != nil {
		return res, err
	}
	err = ws.applyGuarded(in, in.Paths, nil, &res.RestoreResult)
	return res, err
}

// planRevert finds the paths Mine changed and decides, for each, its
// target and whether it is restored, kept or a conflict.
func (ws *Workspace) planRevert(r *store.Reader, opts RevertOptions, res *RevertResult) ([]store.IntentAction, error) {
	touched := map[string]*revertPath{}
	err := r.Changes(opts.From, opts.To, func(c store.Change) error {
		if !opts.Mine(c) {
			return nil
		}
		if rp := touched[c.Path]; rp != nil {
			rp.last = c.Seq
		} else {
			touched[c.Path] = &revertPath{first: c.Seq, last: c.Seq}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(touched))
	for p := range touched {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	head := ws.st.Head()
	sk := r.NewSeeker()
	defer sk.Close()
	var actions []store.IntentAction
	for _, p := range paths {
		rp := touched[p]
		target, err := sk.StateAt(p, rp.first-1)
		if err != nil {
			return nil, err
		}
		left, err := sk.StateAt(p, rp.last)
		if err != nil {
			return nil, err
		}
		now, err := sk.StateAt(p, head)
		if err != nil {
			return nil, err
		}
		if target.SameContent(now) || target.SameContent(left) {
			continue // nothing to undo: already back, or no net change of Mine's
		}
		kind := store.Modified
		switch {
		case !now.Exists():
			kind = store.Added
		case !target.Exists():
			kind = store.Deleted
		}
		by, interleaved, err := foreignChange(r, p, rp, opts.Mine, now.SameContent(left))
		if err != nil {
			return nil, err
		}
		conflict := by.Seq != 0
		if conflict {
			res.Conflicts = append(res.Conflicts, Conflict{Path: p, Kind: kind, By: by, Interleaved: interleaved})
			if !opts.Force {
				continue
			}
		}
		why := ""
		switch {
		case target.Exists() && !target.Stored:
			why = "its content before the change is not stored (larger than max_file_size or unreadable)"
		case now.Exists() && !now.Stored:
			why = "its current content is not stored (larger than max_file_size or unreadable), so replacing it could not be undone"
		}
		if why != "" {
			res.Kept = append(res.Kept, KeptItem{Path: p, Kind: inverse(kind), Why: why})
			continue
		}
		actions = append(actions, store.IntentAction{Path: p, State: target, Before: &now})
		res.Restored = append(res.Restored, RestoreItem{Path: p, Kind: kind, Conflict: conflict})
	}
	return actions, nil
}

// foreignChange is the newest change to p not Mine's after Mine's first
// change to it that reverting would undo: one between Mine's changes
// (interleaved), or one after Mine's last when the path no longer holds
// what Mine left (unchanged is false). Its Seq is 0 if there is none.
func foreignChange(r *store.Reader, p string, rp *revertPath, mine func(store.Change) bool, unchanged bool) (store.Change, bool, error) {
	var by store.Change
	interleaved := false
	err := r.VersionsAfter(p, rp.first, func(seq uint64, _ store.State) (bool, error) {
		if seq > rp.last && unchanged {
			return false, nil
		}
		c, err := r.Change(seq)
		if err != nil {
			return false, err
		}
		if !mine(c) {
			by, interleaved = c, seq < rp.last
		}
		return true, nil
	})
	return by, interleaved, err
}
