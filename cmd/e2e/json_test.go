package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The JSON shapes as CONTRACT.md fixes them, declared here rather than
// imported from drift: the suite checks the wire format, not the Go types.

type change struct {
	Path         string `json:"path"`
	Kind         string `json:"kind"`
	CheckpointID string `json:"checkpoint_id"`
}

type statusJSON struct {
	Workspace string `json:"workspace"`
	Daemon    struct {
		Running bool `json:"running"`
	} `json:"daemon"`
	CurrentCheckpointID string   `json:"current_checkpoint_id"`
	Drifted             bool     `json:"drifted"`
	Changes             []change `json:"changes"`
	Fingerprint         string   `json:"fingerprint"`
	Files               int64    `json:"files"`
	Importing           *struct {
		Phase      string `json:"phase"`
		FilesDone  int64  `json:"files_done"`
		FilesTotal int64  `json:"files_total"`
	} `json:"importing"`
}

type checkpointJSON struct {
	CheckpointID string `json:"checkpoint_id"`
	Reason       string `json:"reason"`
	CreatedAt    string `json:"created_at"`
	SessionID    string `json:"session_id"`
	RunID        string `json:"run_id"`
	Message      string `json:"message"`
	Fingerprint  string `json:"fingerprint"`
	Files        int64  `json:"files"`
}

type showJSON struct {
	checkpointJSON
	Changes []change `json:"changes"`
}

type logJSON struct {
	Checkpoints []checkpointJSON `json:"checkpoints"`
}

type restoreJSON struct {
	CheckpointID      string   `json:"checkpoint_id"`
	GuardCheckpointID string   `json:"guard_checkpoint_id"`
	Restored          []change `json:"restored"`
	Kept              []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
		Why  string `json:"why"`
	} `json:"kept"`
	DryRun bool `json:"dry_run"`
}

type runStartJSON struct {
	SessionID        string   `json:"session_id"`
	RunID            string   `json:"run_id"`
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	WorkspaceDrifted bool     `json:"workspace_drifted"`
	Warning          string   `json:"warning"`
	Drift            []change `json:"drift"`
}

// runDiffJSON is `ckpt diff --session --run` and `ckpt run end`.
type runDiffJSON struct {
	SessionID        string   `json:"session_id"`
	RunID            string   `json:"run_id"`
	CheckpointID     string   `json:"checkpoint_id"`
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	WorkspaceDrifted bool     `json:"workspace_drifted"`
	Warning          string   `json:"warning"`
	Files            []change `json:"files"`
}

type toolEndJSON struct {
	ToolCallID                string   `json:"tool_call_id"`
	Command                   string   `json:"command"`
	CheckpointID              string   `json:"checkpoint_id"`
	Changes                   []change `json:"changes"`
	PreemptivelyCapturedPaths []string `json:"preemptively_captured_paths"`
	UncoveredPaths            []string `json:"uncovered_paths"`
}

type diffJSON struct {
	CheckpointID     string   `json:"checkpoint_id"`
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	Files            []change `json:"files"`
}

// kinds renders changes as sorted "kind path" lines, for comparison.
func kinds(cs []change) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Kind+" "+c.Path)
	}
	slices.Sort(out)
	return out
}

// want renders expected changes the same way: "kind path" pairs.
func want(lines ...string) []string {
	out := slices.Clone(lines)
	slices.Sort(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// assertChanges fails unless the changes are exactly want.
func assertChanges(t *testing.T, what string, got []change, want []string) {
	t.Helper()
	g := kinds(got)
	if slices.Equal(g, want) {
		return
	}
	if len(g)+len(want) <= 20 {
		t.Fatalf("%s: changes\n  got  %s\n  want %s", what, fmtList(g), fmtList(want))
	}
	var missing, extra []string
	for _, w := range want {
		if !slices.Contains(g, w) {
			missing = append(missing, w)
		}
	}
	for _, c := range g {
		if !slices.Contains(want, c) {
			extra = append(extra, c)
		}
	}
	t.Fatalf("%s: %d changes, want %d\n  missing    %s\n  unexpected %s", what, len(g), len(want), fmtList(missing), fmtList(extra))
}

func fmtList(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return fmt.Sprintf("[%s]", strings.Join(l, ", "))
}

func paths(cs []change) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Path)
	}
	slices.Sort(out)
	return out
}
