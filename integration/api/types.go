package api

import (
	"time"
)

// Change is one changed path, as CONTRACT.md fixes it.
type Change struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	// CheckpointID, in a run's files: the checkpoint to roll the file back
	// to, the one before the run first touched it.
	CheckpointID string `json:"checkpoint_id,omitempty"`
	Patch        string `json:"patch,omitempty"`
	Binary       bool   `json:"binary,omitempty"`
	// By says who changed it: "run", "person" or "both".
	By string `json:"by,omitempty"`
	// SharedWith, in a tool window's changes and a run's files: the other
	// runs and tool windows that were open when the path was changed. The
	// disk does not say which of them wrote it, so each reports it.
	SharedWith []Party `json:"shared_with,omitempty"`
}

// Party is a run, or one tool call of a run (ToolCallID set), open while
// a change was made.
type Party struct {
	SessionID  string `json:"session_id"`
	RunID      string `json:"run_id"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Checkpoint is a checkpoint as the CLI shows it.
type Checkpoint struct {
	CheckpointID string    `json:"checkpoint_id"`
	Reason       string    `json:"reason"`
	CreatedAt    time.Time `json:"created_at"`
	SessionID    string    `json:"session_id"`
	RunID        string    `json:"run_id"`
	ToolCallID   string    `json:"tool_call_id,omitempty"`
	Message      string    `json:"message"`
	Fingerprint  string    `json:"fingerprint"`
	Files        int64     `json:"files"`
}

// Daemon describes the daemon serving the workspace, if any.
type Daemon struct {
	Running       bool      `json:"running"`
	PID           int       `json:"pid,omitempty"`
	Version       string    `json:"version,omitempty"`
	Workspaces    []string  `json:"workspaces,omitempty"`
	WatchedDirs   int       `json:"watched_dirs,omitempty"`
	QueueDepth    int       `json:"queue_depth,omitempty"`
	Overflows     int64     `json:"overflows,omitempty"`
	Rewalks       int64     `json:"rewalks,omitempty"`
	Events        int64     `json:"events,omitempty"`
	LastError     string    `json:"last_error,omitempty"`
	LastErrorAt   time.Time `json:"last_error_at,omitzero"`
	ConfigError   string    `json:"config_error,omitempty"` // the workspace's ckpt.yaml is invalid: the daemon keeps its previous settings
	StoreBytes    int64     `json:"store_bytes,omitempty"`
	StartedAt     time.Time `json:"started_at,omitzero"`
	UptimeSeconds int64     `json:"uptime_seconds,omitempty"`
	Degraded      *Degraded `json:"degraded,omitempty"` // some directories are not watched
	// StartHint, when no daemon runs and ckpt did not start one because a
	// systemd user unit should run it, is the command that starts it.
	StartHint string `json:"start_hint,omitempty"`
}

// RunInfo summarizes a run for status.
type RunInfo struct {
	SessionID        string    `json:"session_id"`
	RunID            string    `json:"run_id"`
	BaselineID       string    `json:"prev_checkpoint_id"`
	EndID            string    `json:"checkpoint_id,omitempty"`
	Open             bool      `json:"open"`
	WorkspaceDrifted bool      `json:"workspace_drifted"`
	StartedAt        time.Time `json:"started_at"`
	EndedAt          time.Time `json:"ended_at,omitzero"`
}

// Status is `ckpt status`.
type Status struct {
	Workspace           string    `json:"workspace"`
	Daemon              Daemon    `json:"daemon"`
	CurrentCheckpointID string    `json:"current_checkpoint_id"`
	Drifted             bool      `json:"drifted"`
	Changes             []Change  `json:"changes"`
	Fingerprint         string    `json:"fingerprint"`
	Files               int64     `json:"files"`
	StoreBytes          int64     `json:"store_bytes"`
	LastRun             *RunInfo  `json:"last_run,omitempty"`
	LastRestore         *Restored `json:"last_restore,omitempty"`
	UndoCommand         string    `json:"undo_command,omitempty"`
	// StorageError says why the store cannot record changes now (its
	// file system is full); "" when it can. While it is set, changes
	// made since are not recorded (so not listed) until space is freed.
	StorageError string `json:"storage_error,omitempty"`
	// Unreadable: paths ckpt could not read. Their recorded state is kept
	// (nothing under them counts as deleted), restores leave them alone,
	// and changes under them are unknown until they can be read.
	Unreadable []UnreadablePath `json:"unreadable"`
	// Importing is set while the daemon's first import of the workspace
	// runs: then nothing else is filled in but Workspace and Daemon.
	Importing *ImportProgress `json:"importing,omitempty"`
	// Replication: how far the workspace is replicated to its remote;
	// absent when it has none.
	Replication *Replication `json:"replication,omitempty"`
}

// UnreadablePath is a directory or file that could not be read, and why.
type UnreadablePath struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Restored names the last restore.
type Restored struct {
	CheckpointID      string    `json:"checkpoint_id"`
	GuardCheckpointID string    `json:"guard_checkpoint_id"`
	At                time.Time `json:"at"`
}

// Log is `ckpt log`.
type Log struct {
	Checkpoints []Checkpoint `json:"checkpoints"`
	// Replication: as in Status; absent without a remote.
	Replication *Replication `json:"replication,omitempty"`
}

// Show is `ckpt show`: a checkpoint and what changed since the one before.
type Show struct {
	Checkpoint
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	Changes          []Change `json:"changes"`
}

// DiffRequest asks for the changes FROM -> TO.
type DiffRequest struct {
	From  string   `json:"from,omitempty"` // default: the current checkpoint
	To    string   `json:"to,omitempty"`   // default: the working tree
	Paths []string `json:"paths,omitempty"`
	Patch bool     `json:"patch,omitempty"`
}

// DiffResult is `ckpt diff`.
type DiffResult struct {
	CheckpointID     string   `json:"checkpoint_id"`
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	Files            []Change `json:"files"`
}

// RunRequest names a run (and, for diff, a checkpoint of it).
type RunRequest struct {
	Session    string `json:"session_id"`
	Run        string `json:"run_id"`
	Checkpoint string `json:"checkpoint_id,omitempty"`
	Patch      bool   `json:"patch,omitempty"`
}

// RunDiff is `ckpt diff --session --run`.
type RunDiff struct {
	CheckpointID     string   `json:"checkpoint_id"`
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	WorkspaceDrifted bool     `json:"workspace_drifted"`
	Warning          string   `json:"warning"`
	Files            []Change `json:"files"`
}

// RunStart is `ckpt run start`.
type RunStart struct {
	SessionID        string   `json:"session_id"`
	RunID            string   `json:"run_id"`
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	WorkspaceDrifted bool     `json:"workspace_drifted"`
	Warning          string   `json:"warning"`
	Drift            []Change `json:"drift"`
}

// RunEnd is `ckpt run end`.
type RunEnd struct {
	SessionID        string   `json:"session_id"`
	RunID            string   `json:"run_id"`
	CheckpointID     string   `json:"checkpoint_id"`
	PrevCheckpointID string   `json:"prev_checkpoint_id"`
	WorkspaceDrifted bool     `json:"workspace_drifted"`
	Warning          string   `json:"warning"`
	Files            []Change `json:"files"`
}

// ToolRequest names a tool call.
type ToolRequest struct {
	Session string `json:"session_id"`
	Run     string `json:"run_id"`
	Call    string `json:"tool_call_id"`
	Command string `json:"command,omitempty"`
}

// ToolEnd is `ckpt tool end`: the window's side effects.
type ToolEnd struct {
	ToolCallID                string   `json:"tool_call_id"`
	Command                   string   `json:"command"`
	CheckpointID              string   `json:"checkpoint_id"`
	Changes                   []Change `json:"changes"`
	PreemptivelyCapturedPaths []string `json:"preemptively_captured_paths"`
	UncoveredPaths            []string `json:"uncovered_paths"`
}

// RestoreRequest is `ckpt restore` (and undo).
type RestoreRequest struct {
	ID     string   `json:"checkpoint_id"`
	Paths  []string `json:"paths,omitempty"`
	Exact  bool     `json:"exact,omitempty"`
	DryRun bool     `json:"dry_run,omitempty"`
}

// RestoredChange is a change a restore made.
type RestoredChange struct {
	Path     string `json:"path"`
	Kind     string `json:"kind"`
	Conflict bool   `json:"conflict,omitempty"`
	Error    string `json:"error,omitempty"`
	// SharedWith (a revert's) is who else was open when the run or call
	// made the change: reverting it undoes theirs too.
	SharedWith []Party `json:"shared_with,omitempty"`
}

// KeptChange is a path a restore left alone, and why.
type KeptChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	Why  string `json:"why"`
}

// RefusedChange is a path a restore could not write safely, and why; the
// kind is what the restore would have done to it.
type RefusedChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	Why  string `json:"why"`
}

// RestoreResult is `ckpt restore` and `ckpt undo`. GuardCheckpointID is
// empty when the restore changed nothing (and a dry run).
type RestoreResult struct {
	CheckpointID      string           `json:"checkpoint_id"`
	GuardCheckpointID string           `json:"guard_checkpoint_id"`
	Restored          []RestoredChange `json:"restored"`
	Kept              []KeptChange     `json:"kept"`
	Refused           []RefusedChange  `json:"refused"`
	DryRun            bool             `json:"dry_run"`
}

// HistoryRequest is `ckpt history PATH`.
type HistoryRequest struct {
	Path string `json:"path"`
	N    int    `json:"n,omitempty"` // at most this many versions (0: all)
}

// History is every version of one path, newest first.
type History struct {
	Path     string        `json:"path"`
	Versions []PathVersion `json:"versions"`
}

// PathVersion is one version of a path.
type PathVersion struct {
	Seq  uint64    `json:"seq"`
	At   time.Time `json:"at,omitzero"` // when it was recorded (unknown once pruned)
	Kind string    `json:"kind"`
	// By is who wrote it: "run", "tool" (a tool call of a run), "person"
	// (outside any run), "restore", or "unknown" once retention forgot the
	// journal entry.
	By         string `json:"by"`
	SessionID  string `json:"session_id"`
	RunID      string `json:"run_id"`
	ToolCallID string `json:"tool_call_id"`
	// SharedWith is who else was open when it was written, besides the
	// run or tool call above: a revert of any of them reverts it.
	SharedWith []Party `json:"shared_with,omitempty"`
	// CheckpointID holds exactly this version ("" when none does: the
	// version lived between two checkpoints). Ref always does: `ckpt
	// restore REF PATH` brings this version back.
	CheckpointID string `json:"checkpoint_id"`
	Ref          string `json:"ref"`
	Type         string `json:"type,omitempty"` // "file" or "symlink"; empty when deleted
	Size         int64  `json:"size"`
	Mode         string `json:"mode,omitempty"` // permission bits in octal, e.g. "0644"
}

// RevertRequest is `ckpt revert`: undo what one run (or one tool call of
// it) changed.
type RevertRequest struct {
	Session string `json:"session_id"`
	Run     string `json:"run_id"`
	Call    string `json:"tool_call_id,omitempty"`
	Force   bool   `json:"force,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`
}

// Conflict is a path a revert would take back something else's change on:
// someone or something changed it after the run (or call) did.
type Conflict struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // what reverting it does (or did, with --force)
	// By is who changed it: "run", "tool", "person" or "restore"; for a run
	// or tool, SessionID, RunID and ToolCallID say which.
	By         string `json:"by"`
	SessionID  string `json:"session_id,omitempty"`
	RunID      string `json:"run_id,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Reason     string `json:"reason"`
}

// RevertResult is `ckpt revert`: a restore's result (checkpoint_id is the
// run's baseline or the call's pre_write checkpoint, what the reverted
// paths went back to) and the conflicts.
type RevertResult struct {
	RestoreResult
	Conflicts []Conflict `json:"conflicts"`
}
