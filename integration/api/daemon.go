package api

import (
	"slices"
	"time"
)

// Health is GET /v1/health: the daemon and the workspaces it serves.
type Health struct {
	Version       string            `json:"version"`
	PID           int               `json:"pid"`
	StartedAt     time.Time         `json:"started_at"`
	UptimeSeconds int64             `json:"uptime_seconds"`
	Workspaces    []WorkspaceHealth `json:"workspaces"`
}

// Serves reports whether the daemon serves root (or is opening it).
func (h Health) Serves(root string) bool {
	return slices.ContainsFunc(h.Workspaces, func(w WorkspaceHealth) bool { return w.Root == root })
}

// Workspace states in WorkspaceHealth.
const (
	StateOpening = "opening" // being opened: requests wait
	StateReady   = "ready"
)

// WorkspaceHealth is one served workspace.
type WorkspaceHealth struct {
	Root        string        `json:"root"`
	State       string        `json:"state"`
	Subscribers int           `json:"subscribers"`
	Watcher     *WatcherStats `json:"watcher,omitempty"`
	// Import is the first import's progress while State is "importing".
	Import *ImportProgress `json:"import,omitempty"`
}

// WatcherStats is the health of a workspace's watcher.
type WatcherStats struct {
	Ready       bool      `json:"ready"` // the initial reconcile is done
	WatchedDirs int       `json:"watched_dirs"`
	QueueDepth  int       `json:"queue_depth"`
	Overflows   int64     `json:"overflows"`
	Rewalks     int64     `json:"rewalks"`
	Events      int64     `json:"events"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
	// ConfigError is why the workspace's ckpt.yaml on disk is not in force
	// (the daemon keeps the settings it had); "" when it is.
	ConfigError string `json:"config_error,omitempty"`
	// Degraded names the directories without a watch; nil when all have one.
	Degraded *Degraded `json:"degraded,omitempty"`
}

// AddWorkspacesRequest is POST /v1/workspaces.
type AddWorkspacesRequest struct {
	Workspaces []string `json:"workspaces"`
}

// AddWorkspacesResult says, for each requested root, whether it was newly
// added (false: the daemon served it already).
type AddWorkspacesResult struct {
	Workspaces []AddedWorkspace `json:"workspaces"`
}

// AddedWorkspace is one root of AddWorkspacesResult.
type AddedWorkspace struct {
	Root  string `json:"root"`
	Added bool   `json:"added"`
}

// Event types.
const (
	EventChange     = "change"
	EventCheckpoint = "checkpoint"
	EventRestore    = "restore"
	EventReview     = "review" // a review mark was set or cleared
	EventLost       = "lost"   // events were dropped for this subscriber
)

// Event is one server-sent event of GET /v1/events.
type Event struct {
	Type       string         `json:"type"`
	Workspace  string         `json:"workspace"`
	Time       time.Time      `json:"time"`
	Change     *ChangeEvent   `json:"change,omitempty"`
	Checkpoint *Checkpoint    `json:"checkpoint,omitempty"`
	Restore    *RestoreResult `json:"restore,omitempty"`
	Review     *ReviewEvent   `json:"review,omitempty"`
	Lost       int64          `json:"lost,omitempty"` // how many events were dropped
}

// ChangeEvent is one captured change and whom it is attributed to.
type ChangeEvent struct {
	Seq        uint64 `json:"seq"`
	Path       string `json:"path"`
	Kind       string `json:"kind"`
	By         string `json:"by"` // "person", "run" or "restore"
	SessionID  string `json:"session_id,omitempty"`
	RunID      string `json:"run_id,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	// SharedWith: the other runs and tool calls open when the change was
	// captured (the ids above name the newest); any of them may have made it.
	SharedWith []Party `json:"shared_with,omitempty"`
}

// ReviewEvent is a review mark set (Mark "" : cleared) on a file of a run.
type ReviewEvent struct {
	SessionID string    `json:"session_id"`
	RunID     string    `json:"run_id"`
	Path      string    `json:"path"`
	Mark      string    `json:"mark"`
	At        time.Time `json:"at"`
}

// ErrorBody is every error answer.
type ErrorBody struct {
	Error string `json:"error"`
	// State and PID are set on the answer to a request that does not wait
	// (WaitHeader) for a workspace still opening or importing: its state
	// (StateOpening, StateImporting) and the daemon's pid.
	State string `json:"state,omitempty"`
	PID   int    `json:"pid,omitempty"`
}

// RunBody names a run: POST /v1/run/start and /v1/run/end.
type RunBody struct {
	Session string `json:"session_id"`
	Run     string `json:"run_id"`
	// AsOf (run end only, RFC 3339): end the run as of this moment, already
	// past; what was changed after it is drift, not the run's.
	AsOf time.Time `json:"as_of,omitzero"`
}

// CheckpointBody is POST /v1/checkpoint.
type CheckpointBody struct {
	Message string `json:"message,omitempty"`
}

// Workspaces is GET /v1/workspaces: what the daemon serves.
type Workspaces struct {
	PID        int             `json:"pid"`
	Workspaces []WorkspaceInfo `json:"workspaces"`
}

// WorkspaceInfo is one served workspace.
type WorkspaceInfo struct {
	Root  string `json:"root"`
	State string `json:"state"` // StateOpening or StateReady
	// Files is how many files the workspace holds (0 while opening).
	Files int64 `json:"files"`
	// LastChangeAt is when the newest recorded change was captured (zero:
	// none yet, or still opening).
	LastChangeAt time.Time `json:"last_change_at,omitzero"`
}

// ForgetResult is DELETE /v1/workspaces?workspace=ROOT: the daemon no
// longer watches Root; its history stays in the state directory.
type ForgetResult struct {
	Root string `json:"root"`
	PID  int    `json:"pid"`
}
