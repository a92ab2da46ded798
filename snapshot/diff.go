package snapshot

import (
	"sort"
	"strings"

	"github.com/ckptdev/ckpt/store"
)

// FileChange is how one path differs between two journal positions.
type FileChange struct {
	Path string
	Kind store.ChangeKind
	From store.State
	To   store.State
	// First is the first journal entry for the path after the start.
	First store.Change
}

// Filter selects paths: nil selects all; else a path is selected if it is
// one of the filter's paths or lies under one.
type Filter []string

func (f Filter) match(p string) bool {
	if f == nil {
		return true
	}
	for _, q := range f {
		if q == "" || p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// Head is the journal's head seq.
func (ws *Workspace) Head() uint64 { return ws.st.Head() }

// Diff lists the paths whose state at seq from differs from their state at
// seq to, sorted by path. Only journal entries in (from, to] are read.
// keep, if set, decides which journal entries count (nil: all).
func (ws *Workspace) Diff(from, to uint64, f Filter, keep func(store.Change) bool) ([]FileChange, error) {
	if from > to {
		// Backwards in time: the same paths, with the sides swapped.
		out, err := ws.Diff(to, from, f, keep)
		for i := range out {
			out[i].From, out[i].To = out[i].To, out[i].From
			out[i].Kind = inverse(out[i].Kind)
		}
		return out, err
	}
	var out []FileChange
	err := ws.st.View(func(r *store.Reader) error {
		t := newTouched()
		if err := t.collect(r, from, to, f, keep); err != nil {
			return err
		}
		var err error
		out, err = t.resolve(r, from, to)
		return err
	})
	return out, err
}

// touched gathers the paths a stretch of the journal touched, in the order
// first seen.
type touched struct {
	byPath map[string]*FileChange
	order  []string
}

func newTouched() *touched { return &touched{byPath: map[string]*FileChange{}} }

// add notes one journal entry.
func (t *touched) add(c store.Change) {
	if t.byPath[c.Path] == nil {
		t.byPath[c.Path] = &FileChange{Path: c.Path, First: c}
		t.order = append(t.order, c.Path)
	}
}

// collect notes the entries in (from, to] that f selects and keep counts.
func (t *touched) collect(r *store.Reader, from, to uint64, f Filter, keep func(store.Change) bool) error {
	return r.Changes(from, to, func(c store.Change) error {
		if f.match(c.Path) && (keep == nil || keep(c)) {
			t.add(c)
		}
		return nil
	})
}

// resolve compares every touched path's state at from and at to, and
// returns those that differ, sorted by path.
func (t *touched) resolve(r *store.Reader, from, to uint64) ([]FileChange, error) {
	var out []FileChange
	sk := r.NewSeeker()
	defer sk.Close()
	for _, p := range t.order {
		fc := t.byPath[p]
		var err error
		if fc.From, err = sk.StateAt(p, from); err != nil {
			return nil, err
		}
		if fc.To, err = sk.StateAt(p, to); err != nil {
			return nil, err
		}
		if fc.From.SameContent(fc.To) {
			continue
		}
		switch {
		case !fc.From.Exists():
			fc.Kind = store.Added
		case !fc.To.Exists():
			fc.Kind = store.Deleted
		default:
			fc.Kind = store.Modified
		}
		out = append(out, *fc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Blob reads a stored content.
func (ws *Workspace) Blob(h store.Hash) ([]byte, error) {
	var b []byte
	err := ws.st.View(func(r *store.Reader) (err error) {
		b, err = r.Blob(h)
		return err
	})
	return b, err
}
