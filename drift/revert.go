package drift

import (
	"context"
	"errors"
	"fmt"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// Revert undoes exactly what run req.Session/req.Run (or its tool call
// req.Call) changed: each path it changed goes back to its state before
// the run (call) first changed it. A path changed since by something else
// is a conflict, left alone unless req.Force. A run (or call) still open is
// refused: its changes are not all in yet.
func (e *Engine) Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error) {
	if err := checkRun(req.Session, req.Run); err != nil {
		return api.RevertResult{}, err
	}
	if req.Call != "" {
		if err := checkName("tool call", req.Call); err != nil {
			return api.RevertResult{}, err
		}
	}
	done, err := e.beginRestore(req.DryRun)
	if err != nil {
		return api.RevertResult{}, err
	}
	defer done()
	if err := e.Sync(ctx); err != nil {
		return api.RevertResult{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	opts, from, err := e.revertScope(req)
	if err != nil {
		return api.RevertResult{}, err
	}
	o := opening{session: req.Session, run: req.Run, call: req.Call, from: opts.From, to: opts.To}
	sh := newSharing(o)
	opts.Mine = func(c store.Change) bool { return o.stamped(c) && sh.note(c) }
	r, err := e.ws.Revert(ctx, opts)
	if err != nil {
		return api.RevertResult{}, asInvalid(err)
	}
	res := api.RevertResult{RestoreResult: RestoreResultOf(r.RestoreResult), Conflicts: make([]api.Conflict, 0, len(r.Conflicts))}
	for i, it := range r.Restored {
		res.Restored[i].SharedWith = sh.with(it.Path)
	}
	res.CheckpointID = from
	what := "the run"
	if req.Call != "" {
		what = "the tool call"
	}
	for _, c := range r.Conflicts {
		res.Conflicts = append(res.Conflicts, conflictOf(c, what))
	}
	return res, nil
}

// revertScope is the journal range of the changes to undo, and the
// checkpoint they started from.
func (e *Engine) revertScope(req api.RevertRequest) (snapshot.RevertOptions, string, error) {
	opts := snapshot.RevertOptions{Force: req.Force, DryRun: req.DryRun}
	if req.Call != "" {
		return e.callScope(req, opts)
	}
	rec, err := e.run(req.Session, req.Run)
	if errors.Is(err, store.ErrNotFound) {
		return opts, "", invalid("no run %s/%s", req.Session, req.Run)
	}
	if err != nil {
		return opts, "", err
	}
	if rec.EndID == "" {
		return opts, "", invalid("run %s/%s is still open; end it first", req.Session, req.Run)
	}
	opts.From, opts.To = rec.StartSeq, rec.EndSeq
	if opts.To == 0 {
		end, err := e.ws.Checkpoint(rec.EndID)
		if err != nil {
			return opts, "", err
		}
		opts.To = end.Seq
	}
	opts.Message = fmt.Sprintf("before reverting run %s/%s", req.Session, req.Run)
	return opts, rec.BaselineID, nil
}

// callScope is revertScope for one tool call: its window, which need not
// belong to a run that was started (tool start opens one by itself).
func (e *Engine) callScope(req api.RevertRequest, opts snapshot.RevertOptions) (snapshot.RevertOptions, string, error) {
	tw, err := e.window(api.ToolRequest{Session: req.Session, Run: req.Run, Call: req.Call})
	if errors.Is(err, store.ErrNotFound) {
		return opts, "", invalid("no tool call %s in run %s/%s", req.Call, req.Session, req.Run)
	}
	if err != nil {
		return opts, "", err
	}
	if tw.EndSeq == 0 {
		return opts, "", invalid("tool call %s of run %s/%s is still open; end it first", req.Call, req.Session, req.Run)
	}
	opts.From, opts.To = tw.StartSeq, tw.EndSeq
	opts.Message = fmt.Sprintf("before reverting tool call %s of run %s/%s", req.Call, req.Session, req.Run)
	return opts, tw.CheckpointID, nil
}

func conflictOf(c snapshot.Conflict, what string) api.Conflict {
	a := c.By.Attr
	out := api.Conflict{Path: api.QuotePath(c.Path), Kind: c.Kind.String(), By: byOf(a), SessionID: a.Session, RunID: a.Run, ToolCallID: a.Call}
	who := describe(a)
	if c.Interleaved {
		out.Reason = fmt.Sprintf("also changed by %s while %s was changing it", who, what)
	} else {
		out.Reason = fmt.Sprintf("changed by %s after %s", who, what)
	}
	return out
}

// byOf says who made a change: "restore", "tool" (a tool call of a run),
// "run" or "person" (outside any run).
func byOf(a store.Attr) string {
	switch {
	case a.Restore:
		return "restore"
	case a.Call != "":
		return "tool"
	case a.Session != "" || a.Run != "":
		return "run"
	}
	return "person"
}

func describe(a store.Attr) string {
	switch byOf(a) {
	case "restore":
		return "a restore"
	case "tool":
		return fmt.Sprintf("tool call %s of run %s/%s", a.Call, a.Session, a.Run)
	case "run":
		return fmt.Sprintf("run %s/%s", a.Session, a.Run)
	}
	return "the person (outside any run)"
}
