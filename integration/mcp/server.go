package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ckptdev/ckpt/integration/api"
)

// Backend is what the server asks: the daemon's client or the embedded
// engine.
type Backend interface {
	Status(ctx context.Context) (api.Status, error)
	RunDiff(ctx context.Context, req api.RunRequest) (api.RunDiff, error)
	History(ctx context.Context, req api.HistoryRequest) (api.History, error)
	Restore(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	Undo(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error)
}

// NewServer is ckpt's MCP server over b; version is ckpt's.
func NewServer(b Backend, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ckpt", Version: version}, &mcp.ServerOptions{
		Instructions: "ckpt records every change to this workspace. Use drift to see what the person changed since your last turn, run_changes to see what your run or one tool call changed, history for one path's versions; revert undoes your own run or tool call, restore brings back named paths, undo puts back what the last restore or revert changed.",
	})
	t := &tools{b: b}
	mcp.AddTool(s, &mcp.Tool{Name: "drift", Description: "What changed in the workspace since the current checkpoint that no agent run made (by=person), and your last run. Call it at the start of a turn to see the person's edits."}, t.drift)
	mcp.AddTool(s, &mcp.Tool{Name: "run_changes", Description: "What one run (default: the workspace's last run) or one tool call of it changed, each path with the checkpoint to roll it back to; patch=true adds unified diffs."}, t.runChanges)
	mcp.AddTool(s, &mcp.Tool{Name: "history", Description: "Every recorded version of one path, newest first: when, by whom (run, tool call, person, restore), and the ref to restore it from."}, t.history)
	mcp.AddTool(s, &mcp.Tool{Name: "restore", Description: "Bring the named paths (at least one) back to their state in a checkpoint or @SEQ ref. Only the named paths change; a guard checkpoint is cut first, so undo brings back the state before."}, t.restore)
	mcp.AddTool(s, &mcp.Tool{Name: "revert", Description: "Undo exactly what one ended run (default: the workspace's last run) or one tool call changed; the person's and later runs' changes are kept. A path changed by something else afterwards is a conflict and is left alone unless force=true. Undoable with undo."}, t.revert)
	mcp.AddTool(s, &mcp.Tool{Name: "undo", Description: "Undo the last restore or revert: bring back exactly the state before it (its guard checkpoint)."}, t.undo)
	return s
}

// tools holds the handlers.
type tools struct{ b Backend }

// RunRef names a run; both empty means the workspace's last run.
type RunRef struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the run's session (default: the session of the workspace's last run)"`
	RunID     string `json:"run_id,omitempty" jsonschema:"the run (default: the workspace's last run)"`
}

// DriftInput takes no arguments.
type DriftInput struct{}

// DriftOutput is drift's result.
type DriftOutput struct {
	Drifted             bool         `json:"drifted" jsonschema:"the person changed something since the current checkpoint"`
	CurrentCheckpointID string       `json:"current_checkpoint_id"`
	Changes             []api.Change `json:"changes" jsonschema:"the person's changes (by=person or both); paths quoted as ckpt quotes them"`
	LastRun             *api.RunInfo `json:"last_run,omitempty" jsonschema:"the workspace's last run"`
}

func (t *tools) drift(ctx context.Context, _ *mcp.CallToolRequest, _ DriftInput) (*mcp.CallToolResult, DriftOutput, error) {
	st, err := t.b.Status(ctx)
	if err != nil {
		return nil, DriftOutput{}, err
	}
	out := DriftOutput{CurrentCheckpointID: st.CurrentCheckpointID, LastRun: st.LastRun, Changes: []api.Change{}}
	for _, c := range st.Changes {
		if c.By == "person" || c.By == "both" {
			out.Changes = append(out.Changes, c)
		}
	}
	out.Drifted = len(out.Changes) > 0
	var b strings.Builder
	if st.LastRun != nil {
		fmt.Fprintf(&b, "Last run: %s/%s", textID(st.LastRun.SessionID), textID(st.LastRun.RunID))
		if st.LastRun.Open {
			b.WriteString(" (open)")
		}
		b.WriteString(".\n")
	}
	if !out.Drifted {
		b.WriteString("The person changed nothing since the current checkpoint.\n")
	} else {
		fmt.Fprintf(&b, "The person changed %s since the current checkpoint:\n", count(len(out.Changes), "path"))
		writeList(&b, changeItems(out.Changes))
	}
	return textResult(b.String()), out, nil
}

// RunChangesInput names a run, or one tool call of it.
type RunChangesInput struct {
	RunRef
	ToolCallID string `json:"tool_call_id,omitempty" jsonschema:"only what this tool call of the run changed"`
	Patch      bool   `json:"patch,omitempty" jsonschema:"include unified diffs"`
}

// RunChangesOutput is run_changes' result.
type RunChangesOutput struct {
	SessionID        string       `json:"session_id"`
	RunID            string       `json:"run_id"`
	ToolCallID       string       `json:"tool_call_id,omitempty"`
	CheckpointID     string       `json:"checkpoint_id"`
	PrevCheckpointID string       `json:"prev_checkpoint_id"`
	WorkspaceDrifted bool         `json:"workspace_drifted"`
	Warning          string       `json:"warning,omitempty"`
	Files            []api.Change `json:"files" jsonschema:"what it changed; checkpoint_id is the checkpoint to roll a file back to"`
}

func (t *tools) runChanges(ctx context.Context, _ *mcp.CallToolRequest, in RunChangesInput) (*mcp.CallToolResult, RunChangesOutput, error) {
	ref, err := t.resolveRun(ctx, in.RunRef)
	if err != nil {
		return nil, RunChangesOutput{}, err
	}
	d, err := t.b.RunDiff(ctx, api.RunRequest{Session: ref.SessionID, Run: ref.RunID, Patch: in.Patch})
	if err != nil {
		return nil, RunChangesOutput{}, err
	}
	files := d.Files
	if in.ToolCallID != "" {
		if files, err = t.callFiles(ctx, ref, in.ToolCallID, d.Files); err != nil {
			return nil, RunChangesOutput{}, err
		}
	}
	if files == nil {
		files = []api.Change{}
	}
	out := RunChangesOutput{SessionID: ref.SessionID, RunID: ref.RunID, ToolCallID: in.ToolCallID, CheckpointID: d.CheckpointID,
		PrevCheckpointID: d.PrevCheckpointID, WorkspaceDrifted: d.WorkspaceDrifted, Warning: d.Warning, Files: files}
	what := fmt.Sprintf("Run %s/%s", textID(ref.SessionID), textID(ref.RunID))
	if in.ToolCallID != "" {
		what = fmt.Sprintf("Tool call %s of run %s/%s", textID(in.ToolCallID), textID(ref.SessionID), textID(ref.RunID))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s changed %s.\n", what, count(len(files), "path"))
	writeList(&b, changeItems(files))
	if in.Patch {
		for _, f := range files {
			if f.Patch != "" {
				b.WriteString("\n" + f.Patch)
			}
		}
	}
	return textResult(b.String()), out, nil
}

// callFiles is the run's files that one tool call changed: the paths a
// revert of that call would bring back (or finds in conflict).
func (t *tools) callFiles(ctx context.Context, ref RunRef, call string, files []api.Change) ([]api.Change, error) {
	plan, err := t.b.Revert(ctx, api.RevertRequest{Session: ref.SessionID, Run: ref.RunID, Call: call, DryRun: true})
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, r := range plan.Restored {
		in[r.Path] = true
	}
	for _, c := range plan.Conflicts {
		in[c.Path] = true
	}
	for _, r := range plan.Refused {
		in[r.Path] = true
	}
	var out []api.Change
	for _, f := range files {
		if in[f.Path] {
			out = append(out, f)
			delete(in, f.Path)
		}
	}
	for _, r := range plan.Restored { // changed by the call, not in the run's net diff
		if in[r.Path] {
			out = append(out, api.Change{Path: r.Path, Kind: r.Kind})
		}
	}
	return out, nil
}

// resolveRun fills in the workspace's last run where ref leaves it out.
func (t *tools) resolveRun(ctx context.Context, ref RunRef) (RunRef, error) {
	if ref.SessionID != "" && ref.RunID != "" {
		return ref, nil
	}
	st, err := t.b.Status(ctx)
	if err != nil {
		return ref, err
	}
	last := st.LastRun
	switch {
	case last == nil:
		return ref, errors.New("no run recorded in this workspace yet: give session_id and run_id")
	case ref.SessionID == "" && ref.RunID == "":
		return RunRef{SessionID: last.SessionID, RunID: last.RunID}, nil
	case ref.SessionID == "" || ref.SessionID == last.SessionID:
		if ref.SessionID == "" && ref.RunID != last.RunID {
			return ref, fmt.Errorf("run %s: give its session_id too", textID(ref.RunID))
		}
		return RunRef{SessionID: last.SessionID, RunID: last.RunID}, nil
	default:
		return ref, fmt.Errorf("session %s: give run_id too", textID(ref.SessionID))
	}
}

// HistoryInput names one path.
type HistoryInput struct {
	Path string `json:"path" jsonschema:"the path, relative to the workspace (or absolute inside it)"`
	N    int    `json:"n,omitempty" jsonschema:"at most this many versions (0: all)"`
}

func (t *tools) history(ctx context.Context, _ *mcp.CallToolRequest, in HistoryInput) (*mcp.CallToolResult, api.History, error) {
	if in.N < 0 {
		return nil, api.History{}, fmt.Errorf("n %d is not a count", in.N)
	}
	ps, err := t.paths(ctx, []string{in.Path})
	if err != nil {
		return nil, api.History{}, err
	}
	h, err := t.b.History(ctx, api.HistoryRequest{Path: ps[0], N: in.N})
	if err != nil {
		return nil, api.History{}, err
	}
	if h.Versions == nil {
		h.Versions = []api.PathVersion{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s, newest first (restore one with the restore tool and its ref):\n", count(len(h.Versions), "version"), textPath(h.Path))
	for i, v := range h.Versions {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more\n", len(h.Versions)-maxListed)
			break
		}
		who := textLabel(v.By)
		if v.RunID != "" {
			who += " " + textID(v.SessionID) + "/" + textID(v.RunID)
		}
		if v.ToolCallID != "" {
			who += " call " + textID(v.ToolCallID)
		}
		fmt.Fprintf(&b, "  ref %s: %s by %s\n", textID(v.Ref), textLabel(v.Kind), who)
	}
	return textResult(b.String()), h, nil
}
