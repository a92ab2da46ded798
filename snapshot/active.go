package snapshot

import "github.com/ckptdev/ckpt/store"

// UpdateActive changes who the changes captured from now on belong to:
// update gets a copy of the current set and returns the new one, which is
// persisted. No capture runs meanwhile, so the journal head it returns
// divides the two exactly: every entry up to it was captured under the old
// set, every later one under the new.
func (ws *Workspace) UpdateActive(update func(store.Active) store.Active) (uint64, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	next := update(cloneActive(ws.active))
	if err := ws.st.Write(func(w *store.Writer) error { return w.PutActive(next) }); err != nil {
		return 0, err
	}
	ws.active = next
	return ws.st.Head(), nil
}

// CutActive cuts a checkpoint and changes who the changes captured from
// now on belong to, in one commit and with no capture between the two:
// every entry after the checkpoint was captured under the new set. Like
// Cut, it makes the checkpoint durable before it returns.
func (ws *Workspace) CutActive(reason, message string, attr store.Attr, update func(store.Active) store.Active) (store.Checkpoint, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	next := update(cloneActive(ws.active))
	var cp store.Checkpoint
	err := ws.st.Write(func(w *store.Writer) (err error) {
		if cp, err = putCheckpoint(w, reason, message, attr, ws.unreadable.paths()); err != nil {
			return err
		}
		return w.PutActive(next)
	})
	if err != nil {
		return cp, err
	}
	ws.active = next
	if err := ws.st.Sync(); err != nil {
		return cp, err
	}
	ws.emit(Event{Type: "checkpoint", Checkpoint: &cp})
	return cp, nil
}

func cloneActive(a store.Active) store.Active {
	out := store.Active{Runs: make([]store.ActiveRun, len(a.Runs))}
	for i, r := range a.Runs {
		r.Calls = append([]string(nil), r.Calls...)
		out.Runs[i] = r
	}
	return out
}
