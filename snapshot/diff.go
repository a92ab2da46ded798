package snapshot

import (
	"slices"
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
	byPath map[string]*touchedPath
	order  []string // paths with a counted entry
}

// touchedPath is what the stretch says about one path.
type touchedPath struct {
	fc      FileChange // First is its first counted entry
	counted bool       // an entry that keep counts touched it
	// last is the path's state after the newest entry collect read for
	// it: its state at the end of the stretch, with no seek (lastOK).
	last   store.State
	lastOK bool
	// born: its first entry in the stretch added it, and nothing else
	// noted it before, so it did not exist at the stretch's start.
	born bool
}

func newTouched() *touched { return &touched{byPath: map[string]*touchedPath{}} }

// get returns the record of path p, making it if needed.
func (t *touched) get(p string) (tp *touchedPath, isNew bool) {
	if tp = t.byPath[p]; tp != nil {
		return tp, false
	}
	tp = &touchedPath{fc: FileChange{Path: p}}
	t.byPath[p] = tp
	return tp, true
}

// add notes one counted journal entry.
func (t *touched) add(c store.Change) { t.count(t.byPath[c.Path], c) }

func (t *touched) count(tp *touchedPath, c store.Change) {
	if tp == nil {
		tp, _ = t.get(c.Path)
	}
	if !tp.counted {
		tp.counted, tp.fc.First = true, c
		t.order = append(t.order, c.Path)
	}
}

// collect notes the entries in (from, to] that f selects and keep counts,
// and, for every path f selects, its state at to and whether it was born
// in the stretch (whatever keep says).
func (t *touched) collect(r *store.Reader, from, to uint64, f Filter, keep func(store.Change) bool) error {
	return r.Changes(from, to, func(c store.Change) error {
		if !f.match(c.Path) {
			return nil
		}
		tp, isNew := t.get(c.Path)
		if isNew && c.Kind == store.Added {
			tp.born = true
		}
		tp.last, tp.lastOK = c.State, true
		if keep == nil || keep(c) {
			t.count(tp, c)
		}
		return nil
	})
}

// resolveBySeek makes resolve look every state up in the path index, as
// it did before it used what collect read (tests compare the two).
var resolveBySeek = false

// resolve compares every touched path's state at from and at to, and
// returns those that differ, sorted by path. to must be where the collect
// that touched them ended, and from where it began (or a position the
// stretch's start is known to equal for every path collect saw first:
// the settled seq of a restore, whose unsettled paths are added before).
// A path's state at to is the one its newest entry recorded, and a path
// born in the stretch did not exist at from: only the others are looked up.
func (t *touched) resolve(r *store.Reader, from, to uint64) ([]FileChange, error) {
	// Sorting the paths first, not the changes after, moves strings
	// instead of FileChanges (hundreds of bytes each).
	slices.Sort(t.order)
	out := make([]FileChange, 0, len(t.order))
	sk := r.NewSeeker()
	defer sk.Close()
	for _, p := range t.order {
		tp := t.byPath[p]
		fc := &tp.fc
		var err error
		if tp.born && !resolveBySeek {
			fc.From = store.State{}
		} else if fc.From, err = sk.StateAt(p, from); err != nil {
			return nil, err
		}
		if tp.lastOK && !resolveBySeek {
			fc.To = tp.last
		} else if fc.To, err = sk.StateAt(p, to); err != nil {
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
	if len(out) == 0 {
		return nil, nil
	}
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
