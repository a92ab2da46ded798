package statedir

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"
)

// Key names a workspace's store: the root's base name and a hash of its
// absolute path.
func Key(root string) string {
	return fmt.Sprintf("%s-%016x", filepath.Base(root), xxhash.Sum64String(root))
}

// StoreDir is where the store of the workspace at root lives.
func StoreDir(stateDir, root string) string {
	return filepath.Join(stateDir, "workspaces", Key(root))
}

// Known reports whether root has a store under stateDir.
func Known(stateDir, root string) bool {
	_, err := os.Stat(filepath.Join(StoreDir(stateDir, root), "root"))
	return err == nil
}

// ReplicationFile is where the daemon's replicator writes the workspace's
// replication status (api.Replication as JSON) for commands to read.
func ReplicationFile(stateDir, root string) string {
	return filepath.Join(StoreDir(stateDir, root), "replication.json")
}

// RemoteURLFile holds the remote the workspace at root was cloned from
// (what ckpt pull reads when no remote is configured).
func RemoteURLFile(stateDir, root string) string {
	return filepath.Join(StoreDir(stateDir, root), "remote-url")
}
