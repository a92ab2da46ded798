package replica

import (
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/store/remote"
)

// RetentionHold is what retention must keep of the workspace at root for
// cfg's remote (snapshot.Workspace.SetReplicated): everything the remote
// does not have yet. nil without a remote. A remote_name that is not
// valid (replication cannot run) holds every checkpoint.
func RetentionHold(cfg *config.Config, root string) snapshot.ReplicatedFunc {
	if cfg.Remote == "" {
		return nil
	}
	url := cfg.Remote
	name, nameErr := Name(cfg, root)
	return func(r *store.Reader) (uint64, error) {
		if nameErr != nil {
			return 0, nil
		}
		c, err := remote.CursorIn(r, url, name)
		return c.Ord, err
	}
}
