package daemon

import (
	"slices"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// Health describes the daemon and its workspaces; it never waits for one.
func (s *Server) Health() api.Health {
	h := api.Health{
		Version: api.Version, PID: s.pid, StartedAt: s.started,
		UptimeSeconds: int64(time.Since(s.started).Seconds()),
		Workspaces:    []api.WorkspaceHealth{},
	}
	s.mu.Lock()
	spaces := make([]*space, 0, len(s.spaces))
	for _, sp := range s.spaces {
		spaces = append(spaces, sp)
	}
	s.mu.Unlock()
	slices.SortFunc(spaces, func(a, b *space) int { return strings.Compare(a.root, b.root) })
	for _, sp := range spaces {
		wh := api.WorkspaceHealth{Root: sp.root, State: api.StateOpening, Subscribers: sp.hub.count()}
		if sp.isReady() {
			wh.State = api.StateReady
			if sp.served.Stats != nil {
				st := sp.served.Stats()
				wh.Watcher = &st
			}
			if sp.served.Importing != nil {
				if p := sp.served.Importing(); p != nil {
					wh.State, wh.Import = api.StateImporting, p
				}
			}
		}
		h.Workspaces = append(h.Workspaces, wh)
	}
	return h
}

// DaemonInfo describes the daemon for the status of the workspace at
// root: an OpenFunc gives it to the engine it builds (drift.Options.Daemon).
func (s *Server) DaemonInfo(root string) api.Daemon {
	d := api.Daemon{
		Running: true, PID: s.pid, Version: api.Version, Workspaces: s.Roots(),
		StartedAt: s.started, UptimeSeconds: int64(time.Since(s.started).Seconds()),
	}
	s.mu.Lock()
	sp := s.spaces[root]
	s.mu.Unlock()
	if sp == nil || !sp.isReady() || sp.err != nil {
		return d
	}
	served := sp.served
	d.StoreBytes = served.Engine.Workspace().Store().Size()
	if served.Stats != nil {
		st := served.Stats()
		d.WatchedDirs, d.QueueDepth, d.Overflows, d.Rewalks, d.Events = st.WatchedDirs, st.QueueDepth, st.Overflows, st.Rewalks, st.Events
		d.LastError, d.LastErrorAt = st.LastError, st.LastErrorAt
		d.ConfigError = st.ConfigError
		d.Degraded = st.Degraded
	}
	return d
}
