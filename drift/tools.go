package drift

import (
	"context"
	"errors"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

func checkTool(req api.ToolRequest) error {
	if err := checkRun(req.Session, req.Run); err != nil {
		return err
	}
	if req.Call == "" {
		return invalid("--call is required")
	}
	return checkName("tool call", req.Call)
}

// ToolStart opens a tool window: it cuts pre_write and, in the same
// commit, opens the call: what is captured from now on is attributed to it
// (and to whatever else is open).
func (e *Engine) ToolStart(ctx context.Context, req api.ToolRequest) (api.Checkpoint, error) {
	if err := checkTool(req); err != nil {
		return api.Checkpoint{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return api.Checkpoint{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var cp store.Checkpoint
	err := e.ws.Update(func(tx *snapshot.Tx) error {
		tw, err := tx.ToolWindow(req.Session, req.Run, req.Call)
		switch {
		case err == nil:
			cp, err = resumeWindow(tx, tw, req)
		case errors.Is(err, store.ErrNotFound):
			cp, err = openWindow(tx, req)
		}
		return err
	})
	if err != nil {
		return api.Checkpoint{}, err
	}
	return checkpointOf(cp), nil
}

// ToolEnd closes a tool window and reports its side effects, read from the
// journal between its pre_write and its end: the paths changed while it was
// open, net (a file created and deleted in the window is no change), each
// marked with the other runs and windows open at the time.
func (e *Engine) ToolEnd(ctx context.Context, req api.ToolRequest) (api.ToolEnd, error) {
	if err := checkTool(req); err != nil {
		return api.ToolEnd{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return api.ToolEnd{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var tw store.ToolWindow
	err := e.ws.Update(func(tx *snapshot.Tx) error {
		var err error
		tw, err = tx.ToolWindow(req.Session, req.Run, req.Call)
		if errors.Is(err, store.ErrNotFound) {
			return invalid("no tool window %s for run %s/%s (call tool start first)", req.Call, req.Session, req.Run)
		}
		if err != nil {
			return err
		}
		tw, err = closeWindow(tx, tw, req)
		return err
	})
	if err != nil {
		return api.ToolEnd{}, err
	}
	fcs, sh, err := e.windowDiff(tw)
	if err != nil {
		return api.ToolEnd{}, err
	}
	res := api.ToolEnd{
		ToolCallID: req.Call, Command: tw.Command, CheckpointID: tw.CheckpointID,
		Changes: changesOf(fcs), PreemptivelyCapturedPaths: []string{}, UncoveredPaths: []string{},
	}
	sh.mark(res.Changes)
	for _, fc := range fcs {
		if (fc.From.Exists() && !fc.From.Stored) || (fc.To.Exists() && !fc.To.Stored) {
			res.UncoveredPaths = append(res.UncoveredPaths, api.QuotePath(fc.Path))
		} else {
			res.PreemptivelyCapturedPaths = append(res.PreemptivelyCapturedPaths, api.QuotePath(fc.Path))
		}
	}
	// What the window did under a path ckpt cannot read is unknown.
	for _, u := range e.ws.Unreadable() {
		res.UncoveredPaths = append(res.UncoveredPaths, api.QuotePath(u.Path))
	}
	return res, nil
}

func (e *Engine) window(req api.ToolRequest) (store.ToolWindow, error) {
	return e.ws.ToolWindow(req.Session, req.Run, req.Call)
}

// windowDiff is what a tool window changed: the net changes over its
// stretch of the journal, its pre_write to its end (to the head while it
// is open). Every change captured meanwhile is the window's: the disk does
// not say which process wrote it. sh says, per path, which other runs and
// windows were open too.
func (e *Engine) windowDiff(tw store.ToolWindow) (fcs []snapshot.FileChange, sh *sharing, err error) {
	to := tw.EndSeq
	if to == 0 {
		to = e.ws.Head()
	}
	sh = newSharing(windowOpening(tw))
	fcs, err = e.ws.Diff(tw.StartSeq, to, nil, sh.note)
	return fcs, sh, err
}
