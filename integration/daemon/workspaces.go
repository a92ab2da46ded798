package daemon

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/store"
)

// ForgetFunc stops watching a workspace the server no longer serves and
// closes its store; it returns once the store is closed.
type ForgetFunc func(root string) error

// handleWorkspaces is /v1/workspaces: GET lists, POST adds, DELETE forgets.
func (s *Server) handleWorkspaces(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, s.List())
	case http.MethodPost:
		s.handleAddWorkspaces(w, r)
	case http.MethodDelete:
		res, err := s.Forget(r.URL.Query().Get("workspace"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		s.fail(w, r, httpError{http.StatusMethodNotAllowed, fmt.Errorf("%s %s: use GET, POST or DELETE", r.Method, r.URL.Path)})
	}
}

// List describes the served workspaces (also those being opened), sorted;
// it never waits for one.
func (s *Server) List() api.Workspaces {
	s.mu.Lock()
	spaces := make([]*space, 0, len(s.spaces))
	for _, sp := range s.spaces {
		spaces = append(spaces, sp)
	}
	s.mu.Unlock()
	slices.SortFunc(spaces, func(a, b *space) int { return strings.Compare(a.root, b.root) })
	out := api.Workspaces{PID: s.pid, Workspaces: []api.WorkspaceInfo{}}
	for _, sp := range spaces {
		info := api.WorkspaceInfo{Root: sp.root, State: api.StateOpening}
		if sp.isReady() && sp.err == nil {
			info.State = api.StateReady
			if sp.served.Importing != nil && sp.served.Importing() != nil {
				info.State = api.StateImporting
			}
			ws := sp.served.Engine.Workspace()
			info.Files = int64(ws.Fingerprint().Count)
			ns := sp.lastChange.Load()
			if ns == 0 && info.State == api.StateReady {
				// Served before its first import was journalled: the
				// import's own changes send no events.
				ns = lastChangeOf(ws.Store())
				sp.lastChange.CompareAndSwap(0, ns)
			}
			if ns > 0 {
				info.LastChangeAt = time.Unix(0, ns).UTC()
			}
		}
		out.Workspaces = append(out.Workspaces, info)
	}
	return out
}

// Forget stops serving the workspace at root: new requests for it are
// answered "not served", the ones in flight finish, its event streams end,
// then the ForgetFunc stops its watcher and closes its store. Its history
// stays on disk. A workspace still being opened cannot be forgotten yet.
func (s *Server) Forget(root string) (api.ForgetResult, error) {
	if err := checkRoot(root); err != nil {
		return api.ForgetResult{}, err
	}
	root = filepath.Clean(root)
	if s.opts.Forget == nil {
		return api.ForgetResult{}, errors.New("this server cannot forget workspaces")
	}
	s.mu.Lock()
	sp := s.spaces[root]
	switch {
	case sp == nil:
		s.mu.Unlock()
		return api.ForgetResult{}, fault.Mark(fmt.Errorf("ckptd does not serve the workspace %s", root), fault.Invalid)
	case !sp.isReady():
		s.mu.Unlock()
		return api.ForgetResult{}, fault.Mark(fmt.Errorf("ckptd is still opening %s: forget it once it is ready", root), fault.Busy)
	}
	delete(s.spaces, root)
	s.mu.Unlock()
	sp.hub.close()
	sp.served.Engine.Workspace().Notify(nil)
	sp.users.Wait()
	if err := s.opts.Forget(root); err != nil {
		return api.ForgetResult{}, fmt.Errorf("stop watching %s: %w", root, err)
	}
	return api.ForgetResult{Root: root, PID: s.pid}, nil
}

// acquire is lookup for a request that uses the workspace's engine: the
// workspace is not forgotten under it until release.
func (s *Server) acquire(r *http.Request) (*space, func(), error) {
	root := r.URL.Query().Get("workspace")
	if err := checkRoot(root); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	sp := s.spaces[filepath.Clean(root)]
	if sp != nil {
		sp.users.Add(1)
	}
	s.mu.Unlock()
	if sp == nil {
		return s.lookupNone(r)
	}
	if err := s.notOpen(r, sp); err != nil {
		sp.users.Done()
		return nil, nil, err
	}
	if _, err := sp.wait(r.Context()); err != nil {
		sp.users.Done()
		return nil, nil, err
	}
	return sp, sp.users.Done, nil
}

// lookupNone answers for a workspace that is not served.
func (s *Server) lookupNone(r *http.Request) (*space, func(), error) {
	_, err := s.lookup(r)
	if err == nil {
		err = fault.Mark(errors.New("the workspace was forgotten"), fault.NotFound)
	}
	return nil, nil, err
}

// lastChangeOf is the capture time of the newest change in the store, 0
// when there is none.
func lastChangeOf(st *store.Store) int64 {
	var t int64
	st.View(func(r *store.Reader) error {
		if c, err := r.Change(st.Head()); err == nil {
			t = c.Time
		}
		return nil
	})
	return t
}
