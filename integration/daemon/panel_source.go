package daemon

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/panel"
)

// PanelSource is the server's workspaces as the web panel reads them.
func (s *Server) PanelSource() panel.Source { return panelSource{s} }

type panelSource struct{ s *Server }

func (ps panelSource) Roots() []string { return ps.s.Roots() }

// Workspace is the served workspace named exactly root (once it is open).
func (ps panelSource) Workspace(root string) (panel.Workspace, bool) {
	if root == "" || !filepath.IsAbs(root) || filepath.Clean(root) != root {
		return nil, false
	}
	ps.s.mu.Lock()
	sp := ps.s.spaces[root]
	ps.s.mu.Unlock()
	if sp == nil || !sp.isReady() || sp.err != nil {
		return nil, false
	}
	return panelWorkspace{Engine: sp.served.Engine, sp: sp, closing: ps.s.closing}, true
}

// panelWorkspace is a served workspace: its engine, and its events.
type panelWorkspace struct {
	*drift.Engine
	sp      *space
	closing chan struct{}
}

// Subscribe streams the workspace's events as GET /v1/events does, a
// "lost" event after drops included.
func (pw panelWorkspace) Subscribe(ctx context.Context) (<-chan panel.Event, error) {
	sub := pw.sp.hub.subscribe()
	out := make(chan panel.Event, 64)
	go func() {
		defer close(out)
		defer pw.sp.hub.unsubscribe(sub)
		for {
			var ev api.Event
			select {
			case ev = <-sub.ch:
			case <-sub.wake:
				n := sub.lost.Swap(0)
				if n == 0 {
					continue
				}
				ev = api.Event{Type: api.EventLost, Workspace: pw.sp.root, Time: time.Now().UTC(), Lost: n}
			case <-ctx.Done():
				return
			case <-pw.closing:
				return
			case <-pw.sp.hub.done:
				return
			}
			data, err := json.Marshal(ev)
			if err != nil {
				continue
			}
			select {
			case out <- panel.Event{Type: ev.Type, Data: data}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}
