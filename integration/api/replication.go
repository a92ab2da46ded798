package api

import (
	"encoding/json"
	"os"
	"time"
)

// Replication says how far a workspace's history is replicated to its
// remote (ckpt status, ckpt log, ckpt push).
type Replication struct {
	Remote    string `json:"remote"`    // s3://bucket/prefix
	Workspace string `json:"workspace"` // its name in the remote
	// ReplicatedCheckpointID is the newest checkpoint that is replicated
	// (every object it needs is stored); "" before the first.
	ReplicatedCheckpointID string `json:"replicated_checkpoint_id,omitempty"`
	// ReplicatedSeq is the journal position replicated so far.
	ReplicatedSeq uint64 `json:"replicated_seq"`
	// PendingCheckpoints is how many checkpoints are not replicated yet;
	// PendingChanges how many journal entries.
	PendingCheckpoints int    `json:"pending_checkpoints"`
	PendingChanges     uint64 `json:"pending_changes"`
	// LastSuccess is when a push last completed; LastAttempt when one
	// last started or failed.
	LastSuccess time.Time `json:"last_success,omitzero"`
	LastAttempt time.Time `json:"last_attempt,omitzero"`
	// LastError is why the last attempt failed ("" when it did not); the
	// daemon retries with a backoff (NextRetry).
	LastError string    `json:"last_error,omitempty"`
	NextRetry time.Time `json:"next_retry,omitzero"`
	// RetentionHeld: the store is over retention_size, and retention
	// keeps the checkpoints not replicated yet (it never prunes them).
	RetentionHeld bool `json:"retention_held,omitempty"`
}

// PushResult is `ckpt push`: what was uploaded, and where replication
// stands now.
type PushResult struct {
	Segments     int         `json:"segments"`      // journal segments uploaded
	Checkpoints  int         `json:"checkpoints"`   // checkpoints newly replicated
	Blobs        int         `json:"blobs"`         // contents uploaded
	BlobBytes    int64       `json:"blob_bytes"`    // their size
	BlobsPresent int         `json:"blobs_present"` // contents the remote had already
	Replication  Replication `json:"replication"`
}

// CloneResult is `ckpt clone`.
type CloneResult struct {
	Workspace    string `json:"workspace"` // the new workspace's root
	Remote       string `json:"remote"`
	Name         string `json:"name"` // the workspace's name in the remote
	CheckpointID string `json:"checkpoint_id"`
	Files        int    `json:"files"` // paths written
	// Continues: this workspace may push on under the same name (it
	// cloned the newest history, once the old writer's lease is gone).
	Continues bool `json:"continues"`
}

// RemoteList is `ckpt remote ls`.
type RemoteList struct {
	Remote     string            `json:"remote"`
	Workspaces []RemoteWorkspace `json:"workspaces"`
}

// RemoteWorkspace is one workspace in a remote and its replicated
// checkpoints, oldest first.
type RemoteWorkspace struct {
	Name        string       `json:"name"`
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// ReadReplicationFile is the replication status the daemon's replicator
// last wrote at path, or nil if there is none (or it cannot be read).
func ReadReplicationFile(path string) *Replication {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var s Replication
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// PullResult is `ckpt pull`: the checkpoints brought from the remote, and
// how the files were brought up to the newest of them.
type PullResult struct {
	Remote string `json:"remote"`
	Name   string `json:"name"` // the workspace's name in the remote
	// FromCheckpointID is the checkpoint the workspace was at; CheckpointID
	// the newest pulled one (the same when there was nothing new).
	FromCheckpointID string `json:"from_checkpoint_id"`
	CheckpointID     string `json:"checkpoint_id"`
	UpToDate         bool   `json:"up_to_date"`  // there was nothing new
	Checkpoints      int    `json:"checkpoints"` // checkpoints pulled
	Changes          int    `json:"changes"`     // journal entries pulled
	Blobs            int    `json:"blobs"`       // contents downloaded
	BlobBytes        int64  `json:"blob_bytes"`  // their size
	// Continues: the workspace now has the remote's whole history of the
	// name and may push on under it (once the writer's lease is gone).
	Continues bool `json:"continues"`
	// Files is how the files were brought to CheckpointID, as a restore
	// reports it; its guard_checkpoint_id (FromCheckpointID) is what
	// `ckpt undo` restores.
	Files RestoreResult `json:"files"`
}
