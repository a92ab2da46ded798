package drift

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// The review marks a person puts on a run's files.
const (
	MarkAccepted = "accepted"
	MarkRejected = "rejected"
)

// ReviewRequest marks one file of a run: Mark is "accepted", "rejected",
// or "" to clear the mark.
type ReviewRequest struct {
	Session string `json:"session_id"`
	Run     string `json:"run_id"`
	Path    string `json:"path"`
	Mark    string `json:"mark"`
}

// Review is one file's review mark.
type Review struct {
	Path string    `json:"path"`
	Mark string    `json:"mark"`
	At   time.Time `json:"at"`
}

// Reviews are the review marks of one run, by path.
type Reviews struct {
	SessionID string   `json:"session_id"`
	RunID     string   `json:"run_id"`
	Reviews   []Review `json:"reviews"`
}

// Review records (or clears) a review mark on a file of a run. The run
// must exist; the path must be one the run changed.
func (e *Engine) Review(ctx context.Context, req ReviewRequest) (Review, error) {
	if err := checkRun(req.Session, req.Run); err != nil {
		return Review{}, err
	}
	if req.Mark != MarkAccepted && req.Mark != MarkRejected && req.Mark != "" {
		return Review{}, invalid("mark %q is not %q, %q or empty", req.Mark, MarkAccepted, MarkRejected)
	}
	ps, err := CleanPaths([]string{req.Path})
	if err != nil {
		return Review{}, err
	}
	if ps[0] == "" {
		return Review{}, invalid("a review mark needs a file of the run, not the workspace root")
	}
	d, err := e.RunDiff(ctx, RunRequest{Session: req.Session, Run: req.Run})
	if err != nil {
		return Review{}, err
	}
	if !slices.ContainsFunc(d.Files, func(c Change) bool { return c.Path == ps[0] }) {
		return Review{}, invalid("run %s/%s did not change %s", req.Session, req.Run, ps[0])
	}
	rv := store.Review{Session: req.Session, Run: req.Run, Path: ps[0], Mark: req.Mark, At: time.Now().UTC()}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.ws.Store().Write(func(w *store.Writer) error { return w.PutReview(rv) }); err != nil {
		return Review{}, err
	}
	return Review{Path: rv.Path, Mark: rv.Mark, At: rv.At}, nil
}

// Reviews lists the review marks of a run, by path.
func (e *Engine) Reviews(ctx context.Context, session, run string) (Reviews, error) {
	if err := checkRun(session, run); err != nil {
		return Reviews{}, err
	}
	out := Reviews{SessionID: session, RunID: run, Reviews: []Review{}}
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.Reviews(session, run, func(rv store.Review) error {
			out.Reviews = append(out.Reviews, Review{Path: rv.Path, Mark: rv.Mark, At: rv.At})
			return nil
		})
	})
	return out, err
}

// RunSummary is one run for the timeline, with its tool calls.
type RunSummary struct {
	RunInfo
	// Drift is what changed outside any run before the run started (the
	// person's edits between turns): the run's baseline was re-anchored.
	Drift []string   `json:"drift"`
	Calls []ToolCall `json:"tool_calls"`
}

// ToolCall is one tool call's window.
type ToolCall struct {
	ToolCallID   string    `json:"tool_call_id"`
	Command      string    `json:"command"`
	CheckpointID string    `json:"checkpoint_id"`
	Open         bool      `json:"open"`
	StartedAt    time.Time `json:"started_at"`
	EndedAt      time.Time `json:"ended_at,omitzero"`
	// Changes, in a run's tool calls: the window's net changes.
	Changes []Change `json:"changes,omitempty"`
}

// Runs is every run the store knows, newest first.
type Runs struct {
	Runs []RunSummary `json:"runs"`
}

// Runs lists every recorded run, newest first, with its tool calls.
func (e *Engine) Runs(ctx context.Context) (Runs, error) {
	out := Runs{Runs: []RunSummary{}}
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.Runs(func(rec store.Run) error {
			rs := RunSummary{RunInfo: runInfoOf(rec), Drift: append([]string{}, rec.Drift...), Calls: []ToolCall{}}
			err := r.ToolWindows(rec.Session, rec.Run, func(tw store.ToolWindow) error {
				rs.Calls = append(rs.Calls, toolCallOf(tw))
				return nil
			})
			out.Runs = append(out.Runs, rs)
			return err
		})
	})
	slices.SortStableFunc(out.Runs, func(a, b RunSummary) int { return b.StartedAt.Compare(a.StartedAt) })
	for _, rs := range out.Runs {
		slices.SortStableFunc(rs.Calls, func(a, b ToolCall) int { return a.StartedAt.Compare(b.StartedAt) })
	}
	return out, err
}

func runInfoOf(rec store.Run) RunInfo {
	return RunInfo{
		SessionID: rec.Session, RunID: rec.Run, BaselineID: rec.BaselineID, EndID: rec.EndID,
		Open: rec.EndID == "", WorkspaceDrifted: rec.Drifted, StartedAt: rec.StartedAt, EndedAt: rec.EndedAt,
	}
}

func toolCallOf(tw store.ToolWindow) ToolCall {
	return ToolCall{
		ToolCallID: tw.Call, Command: tw.Command, CheckpointID: tw.CheckpointID,
		Open: tw.EndSeq == 0, StartedAt: tw.StartedAt, EndedAt: tw.EndedAt,
	}
}

// RunCalls is the tool calls of one run, oldest first, each with its net
// changes (and their patches when asked).
type RunCalls struct {
	SessionID string     `json:"session_id"`
	RunID     string     `json:"run_id"`
	Calls     []ToolCall `json:"tool_calls"`
}

// ToolCalls lists run req's tool calls with what each changed.
func (e *Engine) ToolCalls(ctx context.Context, req RunRequest) (RunCalls, error) {
	if err := checkRun(req.Session, req.Run); err != nil {
		return RunCalls{}, err
	}
	var tws []store.ToolWindow
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.ToolWindows(req.Session, req.Run, func(tw store.ToolWindow) error {
			tws = append(tws, tw)
			return nil
		})
	})
	if err != nil {
		return RunCalls{}, err
	}
	slices.SortStableFunc(tws, func(a, b store.ToolWindow) int { return a.StartedAt.Compare(b.StartedAt) })
	out := RunCalls{SessionID: req.Session, RunID: req.Run, Calls: make([]ToolCall, 0, len(tws))}
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

// Page is one page of the checkpoint history, newest first.
type Page struct {
	Checkpoints []Checkpoint `json:"checkpoints"`
	// More says older checkpoints follow: ask again with before set to the
	// last one's id.
	More bool `json:"more"`
}

// Checkpoints is a page of at most n checkpoints (n <= 0: 100), newest
// first, older than the checkpoint before ("" = from the newest).
func (e *Engine) Checkpoints(ctx context.Context, before string, n int) (Page, error) {
	if n <= 0 {
		n = 100
	}
	if before != "" {
		if _, err := e.resolve(before); err != nil {
			return Page{}, err
		}
	}
	out := Page{Checkpoints: []Checkpoint{}}
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
