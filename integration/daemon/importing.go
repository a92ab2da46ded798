package daemon

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

// slowImport, for the tests that need an import that takes a while
// (CKPT_TEST_SLOW_IMPORT=DURATION), is slept for each file the first
// import's walk finds. Unset, it costs a comparison per file.
var slowImport, _ = time.ParseDuration(os.Getenv("CKPT_TEST_SLOW_IMPORT"))

// importState is a watched workspace's first import. The daemon serves
// the workspace while it runs: the import is the watcher's first walk,
// whose watches are added as it goes, so a change made during the import
// is an event queued for after it (or, if the queue overflows, a re-walk)
// and is not lost.
type importState struct {
	mu      sync.Mutex
	running bool
	started time.Time
	walked  atomic.Int64 // files the walk found so far
	listed  atomic.Bool  // the walk is done: walked is the total
	done    atomic.Int64 // files read and stored (they are stored as the walk goes)
}

func (s *importState) begin() {
	s.mu.Lock()
	s.running, s.started = true, time.Now().UTC()
	s.mu.Unlock()
}

func (s *importState) finish() {
	s.mu.Lock()
	s.running = false
	s.mu.Unlock()
}

func (s *importState) pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// stored is the workspace's progress callback while it imports.
func (s *importState) stored(done, _ int) { s.done.Store(int64(done)) }

// progress is the import's progress, or nil when none runs.
func (s *importState) progress() *api.ImportProgress {
	s.mu.Lock()
	running, started := s.running, s.started
	s.mu.Unlock()
	if !running {
		return nil
	}
	p := &api.ImportProgress{Phase: api.ImportWalking, FilesDone: s.done.Load(), FilesTotal: s.walked.Load(), StartedAt: started}
	if s.listed.Load() {
		p.Phase = api.ImportStoring
	}
	p.FilesDone = min(p.FilesDone, p.FilesTotal)
	return p
}

// counting wraps the watcher's walk to count the files it finds.
func (s *importState) counting(walk snapshot.WalkFunc) snapshot.WalkFunc {
	return func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
		defer s.listed.Store(true)
		return walk(ctx, func(rel string, info fs.FileInfo) error {
			if watcher.UnreadableError(info) == nil && !info.IsDir() {
				s.walked.Add(1)
				if slowImport > 0 {
					time.Sleep(slowImport)
				}
			}
			return visit(rel, info)
		})
	}
}

// importingStatus is the answer to GET /v1/status while the workspace's
// first import runs; ok is false when none runs.
func (s *Server) importingStatus(ctx context.Context, sp *space) (api.Status, bool) {
	if sp.served.Importing == nil || sp.served.Importing() == nil {
		return api.Status{}, false
	}
	// A small workspace is imported in moments: its status is then the
	// real one, not a progress report of an import about to end.
	wctx, cancel := context.WithTimeout(ctx, statusImportGrace)
	defer cancel()
	if waitForImport(wctx, sp) == nil {
		return api.Status{}, false
	}
	p := sp.served.Importing()
	if p == nil {
		return api.Status{}, false
	}
	return api.Status{
		Workspace: sp.root, Daemon: s.DaemonInfo(sp.root), Importing: p,
		Changes: []api.Change{}, Unreadable: []api.UnreadablePath{},
	}, true
}

// statusImportGrace is how long a status waits for a first import to end
// before it answers with the import's progress.
const statusImportGrace = 250 * time.Millisecond

// degradedOf converts the watcher's unwatched directories for the wire.
func degradedOf(d *watcher.Degraded) *api.Degraded {
	if d == nil {
		return nil
	}
	return &api.Degraded{Reason: d.Reason, UnwatchedDirs: d.Count, Dirs: append([]string{}, d.Dirs...)}
}

// waitForImport holds a request for the workspace until its first import
// is done: every route but status needs the complete baseline.
func waitForImport(ctx context.Context, sp *space) error {
	if sp.served.Importing == nil {
		return nil
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for sp.served.Importing() != nil {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the first import of %s: %w", sp.root, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}
