package snapshot

import (
	"context"
	"strings"
)

// ReconcileUnder makes the entries under the directory dir match a walk
// of it (watcher.Walker with Start: dir): files under dir that walk does not
// visit are deleted, files it visits are captured as Reconcile captures
// them, and nothing outside dir is touched. The watcher calls it when the
// ignore rules of dir changed: only what lies under dir can be ignored or
// un-ignored by them.
func (ws *Workspace) ReconcileUnder(ctx context.Context, dir string, walk WalkFunc) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.reconcile(ctx, walk, dir, ws.attr(), ws.opts.CheckMappings)
}

// setLinks installs the link index a walk of under ("": everything) built:
// the names outside under are kept.
func (ws *Workspace) setLinks(under string, found linkIndex) {
	if under == "" {
		ws.links = found
		return
	}
	prefix := under + "/"
	for id, names := range ws.links {
		kept := names[:0:0]
		for _, n := range names {
			if !strings.HasPrefix(n, prefix) {
				kept = append(kept, n)
			}
		}
		if len(kept) == 0 {
			delete(ws.links, id)
		} else {
			ws.links[id] = kept
		}
	}
	if ws.links == nil {
		ws.links = linkIndex{}
	}
	for id, names := range found {
		ws.links[id] = append(ws.links[id], names...)
	}
}

// setUnreadable installs the unreadable paths a walk of under ("":
// everything) found: those outside under are kept.
func (ws *Workspace) setUnreadable(under string, found unreadableSet) {
	if under == "" {
		ws.unreadable = found
		return
	}
	if ws.unreadable == nil {
		ws.unreadable = unreadableSet{}
	}
	ws.unreadable.dropUnder(under)
	for p, why := range found {
		ws.unreadable[p] = why
	}
}
