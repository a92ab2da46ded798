package drift

import (
	"sync"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// statusDrift is the drift status last read, kept for the next status
// (snapshot.KeptDrift): a status reads the journal entries committed since
// the one before, not every entry since the current checkpoint, and who
// made each path's entries is kept beside it.
type statusDrift struct {
	mu   sync.Mutex
	kept snapshot.KeptDrift
	by   authors
}

// statusChanges is the drift from cur as status lists it.
func (e *Engine) statusChanges(cur store.Checkpoint) ([]api.Change, error) {
	sd := &e.status
	sd.mu.Lock()
	defer sd.mu.Unlock()
	reset := func(paths int) { sd.by = make(authors, paths) }
	note := func(c store.Change) bool { return sd.by.note(c) }
	fcs, err := e.ws.KeptDrift(&sd.kept, cur, reset, note)
	if err != nil {
		return nil, err
	}
	changes := make([]api.Change, 0, len(fcs))
	for _, fc := range fcs {
		changes = append(changes, api.Change{Path: api.QuotePath(fc.Path), Kind: fc.Kind.String(), By: sd.by.who(fc.Path)})
	}
	return changes, nil
}
