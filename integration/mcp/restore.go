package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ckptdev/ckpt/integration/api"
)

// RestoreInput names a checkpoint (or @SEQ ref) and the paths to bring back.
type RestoreInput struct {
	CheckpointID string   `json:"checkpoint_id" jsonschema:"the checkpoint or @SEQ ref (from history or run_changes) to bring the paths back from"`
	Paths        []string `json:"paths" jsonschema:"the paths to restore (at least one), relative to the workspace; nothing else changes"`
	DryRun       bool     `json:"dry_run,omitempty" jsonschema:"only say what would change"`
}

// ChangeOutput is what restore, revert and undo did.
type ChangeOutput struct {
	api.RevertResult
	UndoHint string `json:"undo_hint,omitempty" jsonschema:"how to undo this change"`
}

func (t *tools) restore(ctx context.Context, _ *mcp.CallToolRequest, in RestoreInput) (*mcp.CallToolResult, ChangeOutput, error) {
	if in.CheckpointID == "" {
		return nil, ChangeOutput{}, errors.New("checkpoint_id is required")
	}
	if len(in.Paths) == 0 {
		return nil, ChangeOutput{}, errors.New("name at least one path: restore only changes the paths it is given")
	}
	ps, err := t.paths(ctx, in.Paths)
	if err != nil {
		return nil, ChangeOutput{}, err
	}
	r, err := t.b.Restore(ctx, api.RestoreRequest{ID: in.CheckpointID, Paths: ps, DryRun: in.DryRun})
	if err != nil {
		return nil, ChangeOutput{}, err
	}
	return changeResult("Restored", fmt.Sprintf("paths from checkpoint %s", textID(in.CheckpointID)), api.RevertResult{RestoreResult: r})
}

// RevertInput names a run, or one tool call of it.
type RevertInput struct {
	RunRef
	ToolCallID string `json:"tool_call_id,omitempty" jsonschema:"revert only this tool call of the run"`
	Force      bool   `json:"force,omitempty" jsonschema:"revert conflicting paths too (undoing what changed them afterwards, possibly the person's edits)"`
	DryRun     bool   `json:"dry_run,omitempty" jsonschema:"only say what would change"`
}

func (t *tools) revert(ctx context.Context, _ *mcp.CallToolRequest, in RevertInput) (*mcp.CallToolResult, ChangeOutput, error) {
	ref, err := t.resolveRun(ctx, in.RunRef)
	if err != nil {
		return nil, ChangeOutput{}, err
	}
	r, err := t.b.Revert(ctx, api.RevertRequest{Session: ref.SessionID, Run: ref.RunID, Call: in.ToolCallID, Force: in.Force, DryRun: in.DryRun})
	if err != nil {
		return nil, ChangeOutput{}, err
	}
	what := fmt.Sprintf("run %s/%s", textID(ref.SessionID), textID(ref.RunID))
	if in.ToolCallID != "" {
		what = fmt.Sprintf("tool call %s of run %s/%s", textID(in.ToolCallID), textID(ref.SessionID), textID(ref.RunID))
	}
	return changeResult("Reverted", what, r)
}

// UndoInput: undo takes only dry_run.
type UndoInput struct {
	DryRun bool `json:"dry_run,omitempty" jsonschema:"only say what would change"`
}

func (t *tools) undo(ctx context.Context, _ *mcp.CallToolRequest, in UndoInput) (*mcp.CallToolResult, ChangeOutput, error) {
	r, err := t.b.Undo(ctx, api.RestoreRequest{DryRun: in.DryRun})
	if err != nil {
		return nil, ChangeOutput{}, err
	}
	return changeResult("Undid", "the last restore", api.RevertResult{RestoreResult: r})
}

// changeResult is the structured result and text of a restore, revert or
// undo; a refused or failed path makes it a tool error (the rest was done).
func changeResult(verb, what string, r api.RevertResult) (*mcp.CallToolResult, ChangeOutput, error) {
	if r.Restored == nil {
		r.Restored = []api.RestoredChange{}
	}
	if r.Kept == nil {
		r.Kept = []api.KeptChange{}
	}
	if r.Refused == nil {
		r.Refused = []api.RefusedChange{}
	}
	if r.Conflicts == nil {
		r.Conflicts = []api.Conflict{}
	}
	out := ChangeOutput{RevertResult: r}
	if !r.DryRun && r.GuardCheckpointID != "" && len(r.Restored) > 0 {
		out.UndoHint = "call undo (or run: ckpt undo) to bring back the state before this"
	}
	if r.DryRun {
		verb = "Would have " + strings.ToLower(verb)
	}
	var b strings.Builder
	var restored, failed []listed
	for _, c := range r.Restored {
		if c.Error != "" {
			failed = append(failed, listed{Label: c.Kind, Path: c.Path})
		} else {
			restored = append(restored, listed{Label: c.Kind, Path: c.Path})
		}
	}
	fmt.Fprintf(&b, "%s %s: %s changed.\n", verb, what, count(len(restored), "path"))
	writeList(&b, restored)
	done := map[string]bool{}
	for _, c := range r.Restored {
		done[c.Path] = true
	}
	var left []listed
	for _, c := range r.Conflicts {
		if !done[c.Path] {
			left = append(left, listed{Label: c.Kind, Path: c.Path})
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "%s changed afterwards by something else, left alone (force=true reverts them too):\n", count(len(left), "path"))
		writeList(&b, left)
	}
	var refused []listed
	for _, c := range r.Refused {
		refused = append(refused, listed{Label: c.Kind, Path: c.Path})
	}
	refused = append(refused, failed...)
	if out.UndoHint != "" {
		b.WriteString("To undo this: " + out.UndoHint + ".\n")
	}
	if len(refused) > 0 {
		fmt.Fprintf(&b, "%s refused or failed (see the structured result for why):\n", count(len(refused), "path"))
		writeList(&b, refused)
		res := textResult(b.String())
		res.IsError = true
		return res, out, nil
	}
	return textResult(b.String()), out, nil
}

// paths turns the agent's paths (relative to the workspace, absolute
// inside it, or quoted as ckpt quotes them) into the engine's form; a
// path outside the workspace is an error.
func (t *tools) paths(ctx context.Context, in []string) ([]string, error) {
	var root string
	out := make([]string, 0, len(in))
	for _, a := range in {
		p, err := api.UnquotePath(a)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", textPath(a), err)
		}
		if p == "" {
			return nil, errors.New("a path is empty")
		}
		if filepath.IsAbs(p) {
			if root == "" {
				st, err := t.b.Status(ctx)
				if err != nil {
					return nil, err
				}
				root = st.Workspace
			}
			rel, err := filepath.Rel(root, filepath.Clean(p))
			if err != nil {
				return nil, fmt.Errorf("%s is outside the workspace", textPath(a))
			}
			p = rel
		}
		p = filepath.Clean(p)
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, fmt.Errorf("%s is outside the workspace", textPath(a))
		}
		out = append(out, api.QuotePath(filepath.ToSlash(p)))
	}
	return out, nil
}

// textResult is a result with one capped text part.
func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: capText(s)}}}
}

// count is "1 path", "2 paths".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
