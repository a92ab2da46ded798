package api

import "time"

// The wire of the web panel's reads and of review marks:
//
//	POST /v1/review    Review    ReviewRequest
//	GET  /v1/reviews   Reviews   ?session=S&run=R

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

// RunCalls is the tool calls of one run, oldest first, each with its net
// changes (and their patches when asked).
type RunCalls struct {
	SessionID string     `json:"session_id"`
	RunID     string     `json:"run_id"`
	Calls     []ToolCall `json:"tool_calls"`
}

// Page is one page of the checkpoint history, newest first.
type Page struct {
	Checkpoints []Checkpoint `json:"checkpoints"`
	// More says older checkpoints follow: ask again with before set to the
	// last one's id.
	More bool `json:"more"`
}

// VersionDiffRequest asks for the diff of one path between two of its
// versions (version references from history, "@SEQ"); To "" is the
// working tree.
type VersionDiffRequest struct {
	Path string `json:"path"`
	From string `json:"from"`
	To   string `json:"to,omitempty"`
}
