package drift

import (
	"context"
	"errors"
	"time"

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
	if tw, err := e.window(req); err == nil {
		cp, err := e.ws.Checkpoint(tw.CheckpointID)
		return checkpointOf(cp), err
	} else if !errors.Is(err, store.ErrNotFound) {
		return api.Checkpoint{}, err
	}
	attr := store.Attr{Session: req.Session, Run: req.Run, Call: req.Call}
	open := func(a store.Active) store.Active { return withCall(a, req) }
	cp, err := e.ws.CutActive(snapshot.ReasonPreWrite, req.Command, attr, open)
	if err != nil {
		return api.Checkpoint{}, err
	}
	tw := store.ToolWindow{
		Session: req.Session, Run: req.Run, Call: req.Call, Command: req.Command,
		CheckpointID: cp.ID, StartSeq: cp.Seq, StartedAt: time.Now().UTC(),
	}
	err = e.ws.Store().Write(func(w *store.Writer) error { return w.PutToolWindow(tw) })
	return checkpointOf(cp), err
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
	tw, err := e.window(req)
	if errors.Is(err, store.ErrNotFound) {
		return api.ToolEnd{}, invalid("no tool window %s for run %s/%s (call tool start first)", req.Call, req.Session, req.Run)
	}
	if err != nil {
		return api.ToolEnd{}, err
	}
	if tw.EndSeq == 0 {
		end, err := e.ws.UpdateActive(func(a store.Active) store.Active { return withoutCall(a, req) })
		if err != nil {
			return api.ToolEnd{}, err
		}
		tw.EndSeq, tw.EndedAt = end, time.Now().UTC()
		if err := e.ws.Store().Write(func(w *store.Writer) error { return w.PutToolWindow(tw) }); err != nil {
			return api.ToolEnd{}, err
		}
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
			res.UncoveredPaths = append(res.UncoveredPaths, QuotePath(fc.Path))
		} else {
			res.PreemptivelyCapturedPaths = append(res.PreemptivelyCapturedPaths, QuotePath(fc.Path))
		}
	}
	// What the window did under a path ckpt cannot read is unknown.
	for _, u := range e.ws.Unreadable() {
		res.UncoveredPaths = append(res.UncoveredPaths, QuotePath(u.Path))
	}
	return res, nil
}

func (e *Engine) window(req api.ToolRequest) (store.ToolWindow, error) {
	var tw store.ToolWindow
	err := e.ws.Store().View(func(r *store.Reader) (err error) {
		tw, err = r.ToolWindow(req.Session, req.Run, req.Call)
		return err
	})
	return tw, err
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

// endWindows closes the run's windows that are still open when it ends, at
// seq: what is captured after the run is no window's.
func (e *Engine) endWindows(session, run string, calls []string, seq uint64) error {
	var open []store.ToolWindow
	err := e.ws.Store().View(func(r *store.Reader) error {
		for _, call := range calls {
			tw, err := r.ToolWindow(session, run, call)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if tw.EndSeq == 0 {
				open = append(open, tw)
			}
		}
		return nil
	})
	if err != nil || len(open) == 0 {
		return err
	}
	return e.ws.Store().Write(func(w *store.Writer) error {
		for _, tw := range open {
			tw.EndSeq, tw.EndedAt = seq, time.Now().UTC()
			if err := w.PutToolWindow(tw); err != nil {
				return err
			}
		}
		return nil
	})
}
