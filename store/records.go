package store

import "time"

// Checkpoint is a named journal position.
type Checkpoint struct {
	ID          string    `json:"id"`
	Ord         uint64    `json:"ord"` // creation order within the workspace
	Seq         uint64    `json:"seq"` // the journal seq it stands at
	Reason      string    `json:"reason"`
	CreatedAt   time.Time `json:"created_at"`
	Session     string    `json:"session,omitempty"`
	Run         string    `json:"run,omitempty"`
	Call        string    `json:"call,omitempty"`
	Message     string    `json:"message,omitempty"`
	Fingerprint uint64    `json:"fingerprint"`
	Files       int64     `json:"files"`
	// Unreadable: paths that could not be read when it was made (their
	// state at it is unknown), sorted.
	Unreadable []string `json:"unreadable,omitempty"`
}

// Fingerprint is the rolling fingerprint of the captured workspace: the sum
// of every captured path's term, and the number of paths.
type Fingerprint struct {
	Sum   uint64 `json:"sum"`
	Count int64  `json:"count"`
}

// WorkspaceState is what drift is measured against. (Records written
// before carry a fingerprint_payload, the current checkpoint's fingerprint
// as text, that nothing read; it is ignored.)
type WorkspaceState struct {
	WorkspaceKey        string    `json:"workspace_key"`
	Root                string    `json:"root"`
	CurrentCheckpointID string    `json:"current_checkpoint_id"`
	UpdatedAt           time.Time `json:"updated_at"`
	// SettledSeq, if set, is a journal seq at which the workspace was known
	// to equal the current checkpoint except for the paths in Unsettled (a
	// restore back to a checkpoint sets it: the journal before it holds the
	// whole way there and back). Drift is then read from the journal after
	// it, so it costs the changes since, not the history since the
	// checkpoint was cut.
	SettledSeq uint64   `json:"settled_seq,omitempty"`
	Unsettled  []string `json:"unsettled,omitempty"`
}

// Run is a run's persisted baseline. (Records written before carry
// active_call_id and active_call_from, which nothing read: tool windows
// and the open set (Active) say which call is open; they are ignored.)
type Run struct {
	Session    string    `json:"session_id"`
	Run        string    `json:"run_id"`
	BaselineID string    `json:"baseline_checkpoint_id"`
	Drifted    bool      `json:"drifted"`
	Drift      []string  `json:"drift,omitempty"`
	EndID      string    `json:"end_checkpoint_id,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	EndedAt    time.Time `json:"ended_at,omitzero"`
	UpdatedAt  time.Time `json:"updated_at"`
	StartSeq   uint64    `json:"start_seq"`
	EndSeq     uint64    `json:"end_seq,omitempty"`
	// OpenSeq is the journal head when the run opened: the entries after
	// it (to EndSeq) were captured while it was open. 0 in records written
	// before it was kept: StartSeq stands in.
	OpenSeq uint64 `json:"open_seq,omitempty"`
	// Warning, if set, says that no baseline was recorded when the run
	// started: BaselineID is the nearest checkpoint before it, and every
	// diff of the run repeats the warning.
	Warning string `json:"warning,omitempty"`
}

// ToolWindow is one tool call's window: from its pre_write checkpoint to its end.
type ToolWindow struct {
	Session      string    `json:"session_id"`
	Run          string    `json:"run_id"`
	Call         string    `json:"tool_call_id"`
	Command      string    `json:"command,omitempty"`
	CheckpointID string    `json:"checkpoint_id"`
	StartSeq     uint64    `json:"start_seq"`
	EndSeq       uint64    `json:"end_seq,omitempty"`
	StartedAt    time.Time `json:"started_at"`
	EndedAt      time.Time `json:"ended_at,omitzero"`
}

// Active is who the changes captured now belong to.
type Active struct {
	Runs []ActiveRun `json:"runs,omitempty"` // open runs, oldest first
}

// ActiveRun is an open run and its open tool calls (oldest first).
type ActiveRun struct {
	Session string   `json:"session_id"`
	Run     string   `json:"run_id"`
	Calls   []string `json:"calls,omitempty"`
	// WindowsOnly: no run start opened the run, only its tool windows;
	// it is open while they are and closes with the last of them.
	WindowsOnly bool `json:"windows_only,omitempty"`
}

// Intent is a restore being applied: persisted (in the same commit as its
// guard checkpoint) before the first write, so that a crash midway, or the
// loss of the unsynced commit that ends the restore, is finished at the
// next open.
type Intent struct {
	TargetID  string         `json:"target_id"`
	GuardID   string         `json:"guard_id"`
	PrevID    string         `json:"prev_current_id"`
	Paths     []string       `json:"paths,omitempty"` // the restore's scope, for undo
	Actions   []IntentAction `json:"actions"`
	CreatedAt time.Time      `json:"created_at"`
}

// IntentAction sets one path to a state.
type IntentAction struct {
	Path  string `json:"path"`
	State State  `json:"state"`
	// Before is what the path held when the restore was planned (nil in
	// intents written before it was recorded). A restore finished at open
	// writes a path only if it still holds Before or already holds State:
	// anything else was written after the restore, and is not ckpt's to
	// overwrite.
	Before *State `json:"before,omitempty"`
}

// LastRestore remembers the last restore, for undo.
type LastRestore struct {
	TargetID string    `json:"target_id"`
	GuardID  string    `json:"guard_id"`
	PrevID   string    `json:"prev_current_id"`
	Paths    []string  `json:"paths,omitempty"`
	At       time.Time `json:"at"`
}
