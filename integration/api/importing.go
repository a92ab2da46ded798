package api

import "time"

// StateImporting is a WorkspaceHealth state: the daemon serves the
// workspace while its first import runs. GET /v1/status answers at once
// (Status.Importing says how far it is); every other workspace route
// waits for the import to finish.
const StateImporting = "importing"

// Import phases in ImportProgress.
const (
	// ImportWalking: the workspace is being listed (and what is listed
	// stored meanwhile); FilesTotal counts the files found so far.
	ImportWalking = "walking"
	// ImportStoring: every file is listed; FilesDone of FilesTotal have
	// been read and stored.
	ImportStoring = "storing"
)

// ImportProgress is a first import while it runs.
type ImportProgress struct {
	Phase      string    `json:"phase"`
	FilesDone  int64     `json:"files_done"`
	FilesTotal int64     `json:"files_total"`
	StartedAt  time.Time `json:"started_at"`
}

// Degraded says which directories the daemon could not watch (the inotify
// watch limit ran out, or a path is too long for inotify) and why. Changes
// under them are found by full re-walks, at every command's sync and
// periodically, instead of as they happen.
type Degraded struct {
	Reason        string   `json:"reason"`
	UnwatchedDirs int      `json:"unwatched_dirs"`
	Dirs          []string `json:"dirs"` // the topmost unwatched directories ("" is the root), at most 20
}
