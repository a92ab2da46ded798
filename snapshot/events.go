package snapshot

import "github.com/ckptdev/ckpt/store"

// Event is something that happened to the workspace, for streams.
type Event struct {
	Type       string            `json:"type"` // "change", "checkpoint", "restore" or "review"
	Change     *store.Change     `json:"change,omitempty"`
	Checkpoint *store.Checkpoint `json:"checkpoint,omitempty"`
	Restore    *RestoreResult    `json:"restore,omitempty"`
	Review     *store.Review     `json:"review,omitempty"`
}

// Notify sets a function told of every change, checkpoint and restore
// after it is committed (and of review marks, see NoteReview). It is called with the workspace's lock held: it
// must not block or call back into the workspace.
func (ws *Workspace) Notify(fn func(Event)) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.notify = fn
}

func (ws *Workspace) emit(ev Event) {
	if ws.notify != nil {
		ws.notify(ev)
	}
}

// emitChanges tells of the journal entries in (from, to].
func (ws *Workspace) emitChanges(from, to uint64) {
	if ws.notify == nil || to <= from {
		return
	}
	ws.st.View(func(r *store.Reader) error {
		return r.Changes(from, to, func(c store.Change) error {
			ws.notify(Event{Type: "change", Change: &c})
			return nil
		})
	})
}

// NoteReview tells the Notify function of a review mark the caller has
// committed to the store (the engine records marks itself).
func (ws *Workspace) NoteReview(rv store.Review) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.emit(Event{Type: "review", Review: &rv})
}
