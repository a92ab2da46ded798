package snapshot

import (
	"io/fs"

	"github.com/ckptdev/ckpt/store"
)

// reconcileBacklog is how many visited paths a reconcile holds while the
// store's entries are still loading. Past it, the walk waits for them.
// A reconcile compares each path with its entry as the walk visits it,
// once the entries are in, and keeps only the paths that differ: holding
// every visited path's lstat info until the walk ended cost about 250
// bytes a file on top of the entries (the path, its info, the list),
// 200 MB of heap at the collector's goal on a 200,000-file workspace,
// for the walk that every embedded command and every daemon start runs.
// The entries load in a fraction of the walk's time, so the walk seldom
// waits.
const reconcileBacklog = 8192

// releaseEntriesEvery is how many entries a reconcile loads between two
// releases of the store's mapped pages (store.ReleasePages): loading them
// reads the LSM tree's tables through Badger's mappings, and at a
// 200,000-file daemon's start they reached 72 MB of its RSS before the
// load ended.
const releaseEntriesEvery = 32768

// reconcileScan is one reconcile's comparison of a walk with the entries.
type reconcileScan struct {
	known   map[string]store.State // the entries not visited yet
	mapped  map[string]bool        // files some process maps for writing
	loaded  chan struct{}          // closed when known and mapped are complete
	loadErr error                  // set before loaded is closed
	ready   bool                   // known and mapped are in, the backlog compared
	backlog []seen                 // visited before they were
	links   linkIndex
	unread  unreadableSet
	cands   []candidate
}

type seen struct {
	path string
	info fs.FileInfo
}

// newReconcileScan starts loading the entries under prefix (and, if
// checkMappings, the files mapped for writing) while the caller walks.
func (ws *Workspace) newReconcileScan(prefix string, hint int64, checkMappings bool) *reconcileScan {
	s := &reconcileScan{
		known:  make(map[string]store.State, hint),
		loaded: make(chan struct{}),
		links:  linkIndex{},
		unread: unreadableSet{},
	}
	go func() {
		defer close(s.loaded)
		s.loadErr = ws.st.View(func(r *store.Reader) error {
			return r.Entries(prefix, func(path string, st store.State) error {
				s.known[path] = st
				if len(s.known)%releaseEntriesEvery == 0 {
					ws.st.ReleasePages()
				}
				return nil
			})
		})
		if hint > 0 { // read every table of the store: keep none mapped
			ws.st.ReleasePages()
		}
		if checkMappings && s.loadErr == nil {
			s.mapped = mappedForWrite(ws.root)
		}
	}()
	return s
}

// visit is the walk's callback.
func (s *reconcileScan) visit(rel string, info fs.FileInfo) error {
	if werr := walkError(info); werr != nil {
		s.unread[rel] = errText(werr)
		return nil
	}
	if id, ok := linkedID(info); ok {
		s.links[id] = append(s.links[id], rel) // a walk visits each path once
	}
	if !s.ready {
		select {
		case <-s.loaded:
		default:
			if len(s.backlog) < reconcileBacklog {
				s.backlog = append(s.backlog, seen{rel, info})
				return nil
			}
		}
		if err := s.compareBacklog(); err != nil {
			return err
		}
	}
	s.compare(rel, info)
	return nil
}

// compareBacklog waits for the entries and compares the paths visited
// before they were in.
func (s *reconcileScan) compareBacklog() error {
	<-s.loaded
	s.ready = true
	if s.loadErr != nil {
		return s.loadErr
	}
	for _, f := range s.backlog {
		s.compare(f.path, f.info)
	}
	s.backlog = nil
	return nil
}

// compare makes rel a candidate unless its stat tuple proves its entry
// still holds; a visited path is no longer among the gone ones.
func (s *reconcileScan) compare(rel string, info fs.FileInfo) {
	prev, had := s.known[rel]
	if had {
		delete(s.known, rel)
		if !s.mapped[rel] && unchanged(prev, statState(info)) {
			return
		}
	}
	s.cands = append(s.cands, candidate{path: rel, info: info, prev: prev, hadPrev: had})
}

// finish compares what the walk left in the backlog, once the walk (with
// walkErr) has ended: the entries left in known are the gone paths. A
// path that could not be read is unknown, not gone.
func (s *reconcileScan) finish(walkErr error) error {
	<-s.loaded
	if walkErr != nil {
		return walkErr
	}
	if !s.ready {
		if err := s.compareBacklog(); err != nil {
			return err
		}
	}
	if err := s.loadErr; err != nil {
		return err
	}
	if len(s.unread) > 0 {
		for p := range s.known {
			if q, _ := s.unread.covering(p); q != "" {
				delete(s.known, p)
			}
		}
	}
	return nil
}
