package snapshot

import "github.com/ckptdev/ckpt/store"

// Tx is one change to the workspace's bookkeeping (checkpoints, the
// current checkpoint, run and tool window records, who is open), made by
// Update: under the capture lock, so nothing is captured between what it
// reads and what it writes, and committed at once.
type Tx struct {
	ws     *Workspace
	w      *store.Writer
	active store.Active
	// activeSet: SetActive was called; cuts: the checkpoints cut, told of
	// once durable.
	activeSet bool
	cuts      []store.Checkpoint
}

// Update runs fn in one store commit under the capture lock: no change is
// captured while it runs, so what fn reads (the head, the drift, who is
// open) is exactly what the checkpoints it cuts hold, and every entry
// captured after it is attributed to the open runs and windows it leaves.
// Either all fn wrote is committed or none of it (fn's error discards
// it), and one sync makes the commit durable before Update returns: what
// it answers (a baseline, an open window, a closed one) survives a power
// cut as a checkpoint does.
func (ws *Workspace) Update(fn func(*Tx) error) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	tx := &Tx{ws: ws, active: cloneActive(ws.active)}
	err := ws.st.Write(func(w *store.Writer) error {
		tx.w = w
		defer func() { tx.w = nil }()
		if err := fn(tx); err != nil {
			return err
		}
		if tx.activeSet {
			if err := w.PutActive(tx.active); err != nil {
				return err
			}
		}
		crashPoint(crashCommit)
		return nil
	})
	if err != nil {
		return err
	}
	ws.active = tx.active
	crashPoint(crashCommitted)
	if err := ws.st.Sync(); err != nil {
		return err
	}
	for i := range tx.cuts {
		ws.emit(Event{Type: "checkpoint", Checkpoint: &tx.cuts[i]})
	}
	return nil
}

// Head is the journal's head: every entry up to it was captured before
// the Tx, every later one after it.
func (tx *Tx) Head() uint64 { return tx.w.Head() }

// Fingerprint is the live fingerprint.
func (tx *Tx) Fingerprint() store.Fingerprint { return tx.w.Fingerprint() }

// Drifted reports whether the workspace differs from cp: its live
// fingerprint is not the one cp recorded.
func (tx *Tx) Drifted(cp store.Checkpoint) bool {
	fp := tx.w.Fingerprint()
	return fp.Sum != cp.Fingerprint || fp.Count != cp.Files
}

// Drift is Workspace.Drift at the Tx's head: how the workspace differs
// from cp, as the checkpoints cut in the Tx hold it.
func (tx *Tx) Drift(cp store.Checkpoint, f Filter, keep func(store.Change) bool) ([]FileChange, error) {
	fcs, err := tx.ws.driftAt(tx.w.Head(), cp, f, keep)
	slowPoint()
	return fcs, err
}

// Cut records a checkpoint at the head (see Workspace.Cut).
func (tx *Tx) Cut(reason, message string, attr store.Attr) (store.Checkpoint, error) {
	cp, err := putCheckpoint(tx.w, reason, message, attr, tx.ws.unreadable.paths())
	if err == nil {
		tx.cuts = append(tx.cuts, cp)
	}
	return cp, err
}

// Current is the current checkpoint.
func (tx *Tx) Current() (store.Checkpoint, error) {
	s, err := tx.w.Workspace()
	if err != nil {
		return store.Checkpoint{}, err
	}
	return tx.w.Checkpoint(s.CurrentCheckpointID)
}

// State is the persisted workspace state (ErrNotFound before the import).
func (tx *Tx) State() (store.WorkspaceState, error) { return tx.w.Workspace() }

// SetCurrent makes cp the current checkpoint.
func (tx *Tx) SetCurrent(cp store.Checkpoint) error { return tx.ws.putCurrent(tx.w, cp, nil) }

// Checkpoint looks up a checkpoint by id (store.ErrNotFound if unknown).
func (tx *Tx) Checkpoint(id string) (store.Checkpoint, error) { return tx.w.Checkpoint(id) }

// Run is a run's record, or store.ErrNotFound.
func (tx *Tx) Run(session, run string) (store.Run, error) { return tx.w.Run(session, run) }

// PutRun stores a run's record.
func (tx *Tx) PutRun(r store.Run) error { return tx.w.PutRun(r) }

// ToolWindow is a tool window's record, or store.ErrNotFound.
func (tx *Tx) ToolWindow(session, run, call string) (store.ToolWindow, error) {
	return tx.w.ToolWindow(session, run, call)
}

// PutToolWindow stores a tool window's record.
func (tx *Tx) PutToolWindow(t store.ToolWindow) error { return tx.w.PutToolWindow(t) }

// Active is who the changes captured after the Tx belong to, as the Tx
// leaves it so far: a copy, free to change and give to SetActive.
func (tx *Tx) Active() store.Active { return cloneActive(tx.active) }

// SetActive makes a who the changes captured after the Tx belong to.
func (tx *Tx) SetActive(a store.Active) {
	tx.active, tx.activeSet = cloneActive(a), true
}

// LastRestore is the last restore that wrote something, or
// store.ErrNotFound.
func (tx *Tx) LastRestore() (store.LastRestore, error) { return tx.w.LastRestore() }

// SetActive persists who changes captured from now on are attributed to.
func (ws *Workspace) SetActive(a store.Active) error {
	return ws.Update(func(tx *Tx) error {
		tx.SetActive(a)
		return nil
	})
}

func cloneActive(a store.Active) store.Active {
	out := store.Active{Runs: make([]store.ActiveRun, len(a.Runs))}
	for i, r := range a.Runs {
		r.Calls = append([]string(nil), r.Calls...)
		out.Runs[i] = r
	}
	return out
}

// Run is a run's record, or store.ErrNotFound.
func (ws *Workspace) Run(session, run string) (rec store.Run, err error) {
	err = ws.st.View(func(r *store.Reader) error {
		rec, err = r.Run(session, run)
		return err
	})
	return rec, err
}

// LastRun is the most recently started run's record, or store.ErrNotFound.
func (ws *Workspace) LastRun() (store.Run, error) { return ws.st.LastRun() }

// ToolWindow is a tool window's record, or store.ErrNotFound.
func (ws *Workspace) ToolWindow(session, run, call string) (tw store.ToolWindow, err error) {
	err = ws.st.View(func(r *store.Reader) error {
		tw, err = r.ToolWindow(session, run, call)
		return err
	})
	return tw, err
}

// LastRestore is the last restore that wrote something, or
// store.ErrNotFound.
func (ws *Workspace) LastRestore() (lr store.LastRestore, err error) {
	err = ws.st.View(func(r *store.Reader) error {
		lr, err = r.LastRestore()
		return err
	})
	return lr, err
}
