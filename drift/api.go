package drift

import (
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// checkpointOf is a checkpoint as the wire shows it.
func checkpointOf(cp store.Checkpoint) api.Checkpoint {
	return api.Checkpoint{
		CheckpointID: cp.ID,
		Reason:       cp.Reason,
		CreatedAt:    cp.CreatedAt,
		SessionID:    cp.Session,
		RunID:        cp.Run,
		ToolCallID:   cp.Call,
		Message:      cp.Message,
		Fingerprint:  snapshot.FormatFingerprint(cp.Fingerprint, cp.Files),
		Files:        cp.Files,
	}
}
