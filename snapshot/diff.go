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
		t := newTouched(to - from)
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
	order  []*touchedPath // the records with a counted entry
	slab   []touchedPath  // records not handed out yet (see get)
}

// touchedPath is what the stretch says about one path.
type touchedPath struct {
	// fc.First is its first counted entry; fc.To, when lastOK, is the
	// path's state after the newest entry collect read for it: its state
	// at the end of the stretch, with no seek.
	fc      FileChange
	counted bool // an entry that keep counts touched it
	lastOK  bool
	// born: its first entry in the stretch added it, and nothing else
	// noted it before, so it did not exist at the stretch's start.
	born bool
}

// newTouched makes the record of a stretch of span journal entries: its
// map is made for as many paths (up to maxTouchedHint), so that a stretch
// of tens of thousands of new paths does not grow it step by step.
func newTouched(span uint64) *touched {
	return &touched{byPath: make(map[string]*touchedPath, min(span, maxTouchedHint))}
}

// maxTouchedHint bounds the paths newTouched makes room for at once: a
// long stretch may rewrite few paths many times.
const maxTouchedHint = 1 << 17

// get returns the record of path p, making it if needed.
func (t *touched) get(p string) (tp *touchedPath, isNew bool) {
	if tp = t.byPath[p]; tp != nil {
		return tp, false
	}
	// Records are made touchedSlab at a time: a stretch of tens of
	// thousands of paths is a few hundred allocations, not one per path.
	if len(t.slab) == 0 {
		t.slab = make([]touchedPath, touchedSlab)
	}
	tp, t.slab = &t.slab[0], t.slab[1:]
	tp.fc.Path = p
	t.byPath[p] = tp
	return tp, true
}

// touchedSlab is how many path records get makes at once.
const touchedSlab = 256

// add notes one counted journal entry.
func (t *touched) add(c store.Change) { t.count(t.byPath[c.Path], c) }

func (t *touched) count(tp *touchedPath, c store.Change) {
	if tp == nil {
		tp, _ = t.get(c.Path)
	}
	if !tp.counted {
		tp.counted, tp.fc.First = true, c
		t.order = append(t.order, tp)
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
		tp.fc.To, tp.lastOK = c.State, true
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
	// Sorting the records first, not the changes after, moves a path and
	// a pointer instead of a FileChange (hundreds of bytes), and compares
	// paths without following the pointer.
	type byPath struct {
		path string
		tp   *touchedPath
	}
	sorted := make([]byPath, len(t.order))
	for i, tp := range t.order {
		sorted[i] = byPath{tp.fc.Path, tp}
	}
	slices.SortFunc(sorted, func(a, b byPath) int { return strings.Compare(a.path, b.path) })
	out := make([]FileChange, 0, len(t.order))
	sk := r.NewSeeker()
	defer sk.Close()
	for _, e := range sorted {
		p, tp := e.path, e.tp
		fc := &tp.fc
		var err error
		if tp.born && !resolveBySeek {
			fc.From = store.State{}
		} else if fc.From, err = sk.StateAt(p, from); err != nil {
			return nil, err
		}
		if !tp.lastOK || resolveBySeek {
			if fc.To, err = sk.StateAt(p, to); err != nil {
				return nil, err
			}
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
