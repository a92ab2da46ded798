package api

// The wire of ckpt gc:
//
//	POST /v1/gc    GC    GCRequest

// GCRequest applies a retention policy now. The policy is the caller's
// (its retention and retention_size settings).
type GCRequest struct {
	DryRun           bool  `json:"dry_run"`
	RetentionSeconds int64 `json:"retention_seconds"` // 0: nothing pruned by age
	RetentionSize    int64 `json:"retention_size"`    // bytes; 0: no budget
}

// GC is what a gc pruned and the space the store takes before and after.
type GC struct {
	DryRun           bool  `json:"dry_run"`
	RetentionSeconds int64 `json:"retention_seconds"`
	RetentionSize    int64 `json:"retention_size"`
	// Checkpoints pruned (a dry run: that the age rule would prune), and
	// their ids.
	Checkpoints int      `json:"checkpoints"`
	Pruned      []string `json:"pruned"`
	// What went with them: journal entries, path-index entries, stored
	// contents (blobs). 0 in a dry run.
	JournalEntries int `json:"journal_entries"`
	PathEntries    int `json:"path_entries"`
	Blobs          int `json:"blobs"`
	// The store's disk usage (allocated blocks, the reserve file aside).
	BytesBefore int64 `json:"bytes_before"`
	BytesAfter  int64 `json:"bytes_after"`
	// CheckpointsLeft is how many remain (would remain).
	CheckpointsLeft int `json:"checkpoints_left"`
	// Pinned are the remaining checkpoints kept whatever their age and
	// the budget, oldest first, with why.
	Pinned []GCPin `json:"pinned"`
	// OverBudget: the store is still over retention_size (a dry run: is
	// over it now).
	OverBudget bool `json:"over_budget"`
}

// GCPin is a checkpoint retention keeps because something needs it. Reason
// is current, restore_target, restore_guard, undo, unfinished_restore,
// open_run, last_run or review.
type GCPin struct {
	CheckpointID string `json:"checkpoint_id"`
	Reason       string `json:"reason"`
}
