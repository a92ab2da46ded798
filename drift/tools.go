package drift

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

func checkTool(req ToolRequest) error {
	if err := checkRun(req.Session, req.Run); err != nil {
		return err
	}
	if req.Call == "" {
		return invalid("--call is required")
	}
	return checkName("tool call", req.Call)
}

// ToolStart opens a tool window: it cuts pre_write, and attributes what is
// captured from now on to the call.
func (e *Engine) ToolStart(ctx context.Context, req ToolRequest) (Checkpoint, error) {
	if err := checkTool(req); err != nil {
		return Checkpoint{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return Checkpoint{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if tw, err := e.window(req); err == nil {
		cp, err := e.ws.Checkpoint(tw.CheckpointID)
		return checkpointOf(cp), err
	} else if !errors.Is(err, store.ErrNotFound) {
		return Checkpoint{}, err
	}
	cp, err := e.ws.Cut(snapshot.ReasonPreWrite, req.Command, store.Attr{Session: req.Session, Run: req.Run, Call: req.Call})
	if err != nil {
		return Checkpoint{}, err
	}
	tw := store.ToolWindow{
		Session: req.Session, Run: req.Run, Call: req.Call, Command: req.Command,
		CheckpointID: cp.ID, StartSeq: cp.Seq, StartedAt: time.Now().UTC(),
	}
	if err := e.ws.Store().Write(func(w *store.Writer) error { return w.PutToolWindow(tw) }); err != nil {
		return Checkpoint{}, err
	}
	a := e.ws.Active()
	a.Runs = slices.Clone(a.Runs)
	i := slices.IndexFunc(a.Runs, func(r store.ActiveRun) bool { return r.Session == req.Session && r.Run == req.Run })
	if i < 0 {
		a.Runs = append(a.Runs, store.ActiveRun{Session: req.Session, Run: req.Run})
		i = len(a.Runs) - 1
	}
	r := a.Runs[i]
	r.Calls = append(slices.Clone(r.Calls), req.Call)
	// The run with the newest window is the newest: captures go to it.
	a.Runs = append(slices.Delete(a.Runs, i, i+1), r)
	return checkpointOf(cp), e.ws.SetActive(a)
}

// ToolEnd closes a tool window and reports its side effects, read from the
// journal: the paths the call changed, net (a file created and deleted in
// the window is no change).
func (e *Engine) ToolEnd(ctx context.Context, req ToolRequest) (ToolEnd, error) {
	if err := checkTool(req); err != nil {
		return ToolEnd{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return ToolEnd{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	tw, err := e.window(req)
	if errors.Is(err, store.ErrNotFound) {
		return ToolEnd{}, invalid("no tool window %s for run %s/%s (call tool start first)", req.Call, req.Session, req.Run)
	}
	if err != nil {
		return ToolEnd{}, err
	}
	if tw.EndSeq == 0 {
		tw.EndSeq, tw.EndedAt = e.ws.Head(), time.Now().UTC()
		if err := e.ws.Store().Write(func(w *store.Writer) error { return w.PutToolWindow(tw) }); err != nil {
			return ToolEnd{}, err
		}
		if err := e.closeCall(req); err != nil {
			return ToolEnd{}, err
		}
	}
	mine := func(c store.Change) bool {
		return c.Attr.Session == req.Session && c.Attr.Run == req.Run && c.Attr.Call == req.Call
	}
	fcs, err := e.ws.Diff(tw.StartSeq, tw.EndSeq, nil, mine)
	if err != nil {
		return ToolEnd{}, err
	}
	res := ToolEnd{
		ToolCallID: req.Call, Command: tw.Command, CheckpointID: tw.CheckpointID,
		Changes: changesOf(fcs), PreemptivelyCapturedPaths: []string{}, UncoveredPaths: []string{},
	}
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

func (e *Engine) window(req ToolRequest) (store.ToolWindow, error) {
	var tw store.ToolWindow
	err := e.ws.Store().View(func(r *store.Reader) (err error) {
		tw, err = r.ToolWindow(req.Session, req.Run, req.Call)
		return err
	})
	return tw, err
}

func (e *Engine) closeCall(req ToolRequest) error {
	a := e.ws.Active()
	a.Runs = slices.Clone(a.Runs)
	for i, r := range a.Runs {
		if r.Session == req.Session && r.Run == req.Run {
			r.Calls = slices.DeleteFunc(slices.Clone(r.Calls), func(c string) bool { return c == req.Call })
			a.Runs[i] = r
		}
	}
	return e.ws.SetActive(a)
}
