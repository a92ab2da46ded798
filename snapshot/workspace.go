package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ckptdev/ckpt/internal/statedir"
	"github.com/ckptdev/ckpt/store"
)

// Options configure a Workspace.
type Options struct {
	// MaxFileSize: larger files are fingerprinted but not stored.
	MaxFileSize int64
	// LockTimeout bounds the wait for another process holding the store.
	LockTimeout time.Duration
	// Workers hash and compress in parallel; 0 means two per CPU.
	Workers int
	// Progress, if set, is told how far a long capture (the first import)
	// has come.
	Progress func(done, total int)
	// ShortLived opens the store for reading and reopens it for writing
	// only when something is to be written (store.OpenLazy): for a
	// process that opens the workspace for one command.
	ShortLived bool
	// CheckMappings makes every Reconcile read the files that a process
	// has mapped shared and writable, whatever their stat says: writes
	// through such a mapping need not move the stat (mapped.go). It costs
	// a read of every process's memory map per scan: for a daemon, whose
	// scans are rare, not for a command that scans each time.
	CheckMappings bool
}

// Workspace is one watched directory and its store. Its methods are safe
// for concurrent use: captures, cuts and restores are serialized.
type Workspace struct {
	root string
	key  string
	st   *store.Store
	opts Options

	mu     sync.Mutex // serializes capture, cut and restore
	active store.Active
	links  linkIndex // under mu: names of multiply-linked files (links.go)
	notify func(Event)
	// unreadable: the paths the last walk or capture could not read
	// (guarded by mu).
	unreadable unreadableSet
	// hold: what retention keeps for replication (retain_replica.go).
	hold replicaHold
	// recompressing is held by the Recompress that runs (one at a time).
	recompressing sync.Mutex
}

// Key names a workspace's store: the root's base name and a hash of its
// absolute path (statedir.Key).
func Key(root string) string { return statedir.Key(root) }

// StoreDir is where the store of the workspace at root lives.
func StoreDir(stateDir, root string) string { return statedir.StoreDir(stateDir, root) }

// Known reports whether root has a store under stateDir.
func Known(stateDir, root string) bool { return statedir.Known(stateDir, root) }

// Open opens the workspace at root (an absolute, clean path) with its store
// under stateDir. An unfinished restore is finished first.
func Open(stateDir, root string, opts Options) (*Workspace, error) {
	return OpenContext(context.Background(), stateDir, root, opts)
}

// OpenContext is Open, whose wait for another process holding the store
// (Options.LockTimeout) ends early, with ctx's error, when ctx is done.
func OpenContext(ctx context.Context, stateDir, root string, opts Options) (*Workspace, error) {
	if opts.Workers <= 0 {
		opts.Workers = 2 * numCPU()
	}
	dir := StoreDir(stateDir, root)
	st, err := store.OpenContext(ctx, dir, opts.LockTimeout, opts.ShortLived)
	if err != nil {
		return nil, err
	}
	if err := writeRootFile(dir, root); err != nil {
		st.Close()
		return nil, err
	}
	ws := &Workspace{root: root, key: Key(root), st: st, opts: opts}
	err = st.View(func(r *store.Reader) (err error) {
		ws.active, err = r.Active()
		return err
	})
	if err == nil {
		err = ws.finishIntent()
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return ws, nil
}

// writeRootFile records root next to its store (Known looks for it; a
// person looking at the state directory learns whose store it is). It
// writes only when the file is missing or says something else: every
// embedded command opens the workspace, and a rewrite is a truncate, a
// write and a metadata update each time.
func writeRootFile(dir, root string) error {
	path := filepath.Join(dir, "root")
	want := root + "\n"
	if got, err := os.ReadFile(path); err == nil && string(got) == want {
		return nil
	}
	return os.WriteFile(path, []byte(want), 0o600)
}

// Close closes the store.
func (ws *Workspace) Close() error { return ws.st.Close() }

// Root is the workspace's absolute path.
func (ws *Workspace) Root() string { return ws.root }

// Store is the workspace's store, for the packages built on snapshot.
func (ws *Workspace) Store() *store.Store { return ws.st }

// Imported reports whether the first import happened.
func (ws *Workspace) Imported() (bool, error) {
	err := ws.st.View(func(r *store.Reader) error {
		_, err := r.Workspace()
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Active is who changes captured now are attributed to.
func (ws *Workspace) Active() store.Active {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.active
}

// attr is the attribution of a change captured now: the newest open tool
// call of the newest open run, else the newest open run, else nobody; and,
// in Shared, every other run and tool call open (each open call of a run,
// or the run itself when it has none), since any of them may have made it.
func (ws *Workspace) attr() store.Attr {
	if len(ws.active.Runs) == 0 {
		return store.Attr{}
	}
	r := ws.active.Runs[len(ws.active.Runs)-1]
	a := store.Attr{Session: r.Session, Run: r.Run}
	if n := len(r.Calls); n > 0 {
		a.Call = r.Calls[n-1]
	}
	named := store.Party{Session: a.Session, Run: a.Run, Call: a.Call}
	for _, o := range ws.active.Runs {
		if len(o.Calls) == 0 && (o.Session != r.Session || o.Run != r.Run) {
			a.Shared = append(a.Shared, store.Party{Session: o.Session, Run: o.Run})
		}
		for _, c := range o.Calls {
			if p := (store.Party{Session: o.Session, Run: o.Run, Call: c}); p != named {
				a.Shared = append(a.Shared, p)
			}
		}
	}
	return a
}

// Fingerprint is the live fingerprint.
func (ws *Workspace) Fingerprint() store.Fingerprint { return ws.st.Fingerprint() }
