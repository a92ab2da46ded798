package drift

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/store"
)

// api.Review records (or clears) a review mark on a file of a run. The run
// must exist; the path must be one the run changed.
func (e *Engine) Review(ctx context.Context, req api.ReviewRequest) (api.Review, error) {
	if err := checkRun(req.Session, req.Run); err != nil {
		return api.Review{}, err
	}
	if req.Mark != api.MarkAccepted && req.Mark != api.MarkRejected && req.Mark != "" {
		return api.Review{}, invalid("mark %q is not %q, %q or empty", req.Mark, api.MarkAccepted, api.MarkRejected)
	}
	ps, err := CleanPaths([]string{req.Path})
	if err != nil {
		return api.Review{}, err
	}
	if ps[0] == "" {
		return api.Review{}, invalid("a review mark needs a file of the run, not the workspace root")
	}
	d, err := e.RunDiff(ctx, api.RunRequest{Session: req.Session, Run: req.Run})
	if err != nil {
		return api.Review{}, err
	}
	quoted := api.QuotePath(ps[0]) // the run's changes name their paths quoted
	if !slices.ContainsFunc(d.Files, func(c api.Change) bool { return c.Path == quoted }) {
		return api.Review{}, invalid("run %s/%s did not change %s", req.Session, req.Run, quoted)
	}
	rv := store.Review{Session: req.Session, Run: req.Run, Path: ps[0], Mark: req.Mark, At: time.Now().UTC()}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.ws.Store().Write(func(w *store.Writer) error { return w.PutReview(rv) }); err != nil {
		return api.Review{}, err
	}
	e.ws.NoteReview(rv) // open panels show it at once
	return reviewOf(rv), nil
}

// api.Reviews lists the review marks of a run, by path.
func (e *Engine) Reviews(ctx context.Context, session, run string) (api.Reviews, error) {
	if err := checkRun(session, run); err != nil {
		return api.Reviews{}, err
	}
	out := api.Reviews{SessionID: session, RunID: run, Reviews: []api.Review{}}
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.Reviews(session, run, func(rv store.Review) error {
			out.Reviews = append(out.Reviews, reviewOf(rv))
			return nil
		})
	})
	return out, err
}

// reviewOf is a stored review mark as the API shows it: its path quoted,
// as every path ckpt prints (and as the run's changes and the review
// events name it).
func reviewOf(rv store.Review) api.Review {
	return api.Review{Path: api.QuotePath(rv.Path), Mark: rv.Mark, At: rv.At}
}

// api.Runs lists every recorded run, newest first, with its tool calls.
func (e *Engine) Runs(ctx context.Context) (api.Runs, error) {
	out := api.Runs{Runs: []api.RunSummary{}}
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.Runs(func(rec store.Run) error {
			rs := api.RunSummary{RunInfo: runInfoOf(rec), Drift: append([]string{}, rec.Drift...), Calls: []api.ToolCall{}}
			err := r.ToolWindows(rec.Session, rec.Run, func(tw store.ToolWindow) error {
				rs.Calls = append(rs.Calls, toolCallOf(tw))
				return nil
			})
			out.Runs = append(out.Runs, rs)
			return err
		})
	})
	slices.SortStableFunc(out.Runs, func(a, b api.RunSummary) int { return b.StartedAt.Compare(a.StartedAt) })
	for _, rs := range out.Runs {
		slices.SortStableFunc(rs.Calls, func(a, b api.ToolCall) int { return a.StartedAt.Compare(b.StartedAt) })
	}
	return out, err
}

func runInfoOf(rec store.Run) api.RunInfo {
	return api.RunInfo{
		SessionID: rec.Session, RunID: rec.Run, BaselineID: rec.BaselineID, EndID: rec.EndID,
		Open: rec.EndID == "", WorkspaceDrifted: rec.Drifted, StartedAt: rec.StartedAt, EndedAt: rec.EndedAt,
	}
}

func toolCallOf(tw store.ToolWindow) api.ToolCall {
	return api.ToolCall{
		ToolCallID: tw.Call, Command: tw.Command, CheckpointID: tw.CheckpointID,
		Open: tw.EndSeq == 0, StartedAt: tw.StartedAt, EndedAt: tw.EndedAt,
	}
}

// ToolCalls lists run req's tool calls with what each changed.
func (e *Engine) ToolCalls(ctx context.Context, req api.RunRequest) (api.RunCalls, error) {
	if err := checkRun(req.Session, req.Run); err != nil {
		return api.RunCalls{}, err
	}
	var tws []store.ToolWindow
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.ToolWindows(req.Session, req.Run, func(tw store.ToolWindow) error {
			tws = append(tws, tw)
			return nil
		})
	})
	if err != nil {
		return api.RunCalls{}, err
	}
	slices.SortStableFunc(tws, func(a, b store.ToolWindow) int { return a.StartedAt.Compare(b.StartedAt) })
	out := api.RunCalls{SessionID: req.Session, RunID: req.Run, Calls: make([]api.ToolCall, 0, len(tws))}
	for _, tw := range tws {
		fcs, sh, err := e.windowDiff(tw)
		if err != nil {
			return out, err
		}
		tc := toolCallOf(tw)
		tc.Changes = changesOf(fcs)
		sh.mark(tc.Changes)
		if req.Patch {
			e.addPatches(tc.Changes, fcs)
		}
		out.Calls = append(out.Calls, tc)
	}
	return out, nil
}

// Checkpoints is a page of at most n checkpoints (n <= 0: 100), newest
// first, older than the checkpoint before ("" = from the newest).
func (e *Engine) Checkpoints(ctx context.Context, before string, n int) (api.Page, error) {
	if n <= 0 {
		n = 100
	}
	if before != "" {
		if _, err := e.resolve(before); err != nil {
			return api.Page{}, err
		}
	}
	out := api.Page{Checkpoints: []api.Checkpoint{}}
	skipping := before != ""
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.Checkpoints(func(cp store.Checkpoint) (bool, error) {
			if skipping {
				skipping = cp.ID != before
				return true, nil
			}
			if len(out.Checkpoints) == n {
				out.More = true
				return false, nil
			}
			out.Checkpoints = append(out.Checkpoints, checkpointOf(cp))
			return true, nil
		})
	})
	return out, err
}

// PendingPath is the file an open tool call names in its command ("Edit
// /abs/path" as the Claude Code hook records it), relative to the
// workspace; "" when it names none inside it.
func (e *Engine) PendingPath(command string) string {
	_, p, ok := strings.Cut(command, " ")
	if !ok || !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\n") {
		return ""
	}
	root := strings.TrimSuffix(e.ws.Root(), "/") + "/"
	if !strings.HasPrefix(p, root) {
		return ""
	}
	ps, err := CleanPaths([]string{strings.TrimPrefix(p, root)})
	if err != nil || ps[0] == "" {
		return ""
	}
	return ps[0]
}
