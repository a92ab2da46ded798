package replica

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/internal/statedir"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/store/remote"
)

// ErrNoRemote: the workspace has no remote configured.
var ErrNoRemote = config.ErrNoRemote

// Open opens the remote at url (cfg.Remote when url is ""), with cfg's
// endpoint, region, key file and bandwidth.
func Open(cfg *config.Config, url string) (*remote.Remote, error) {
	if url == "" {
		url = cfg.Remote
	}
	if url == "" {
		return nil, ErrNoRemote
	}
	return remote.Open(remote.Config{URL: url, Endpoint: cfg.RemoteEndpoint, Region: cfg.RemoteRegion,
		KeyFile: cfg.RemoteKeyFile, Bandwidth: cfg.RemoteBandwidth})
}

// Name is the workspace's name in the remote: remote_name, else the name
// it was cloned from, else the root's base name with what a name may not
// hold replaced by '-'.
func Name(cfg *config.Config, root string) (string, error) {
	if cfg.RemoteName == "" {
		if b, err := os.ReadFile(nameFile(cfg.StateDir, root)); err == nil && remote.ValidName(strings.TrimSpace(string(b))) {
			return strings.TrimSpace(string(b)), nil
		}
	}
	if cfg.RemoteName != "" {
		if !remote.ValidName(cfg.RemoteName) {
			return "", fault.Mark(fmt.Errorf("remote_name %q: use 1-128 of A-Z a-z 0-9 . _ -, not starting with a dot", cfg.RemoteName), fault.Invalid)
		}
		return cfg.RemoteName, nil
	}
	name := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			return c
		}
		return '-'
	}, filepath.Base(root))
	name = strings.TrimLeft(name, ".")
	if len(name) > 128 {
		name = name[:128]
	}
	if name == "" {
		name = "workspace"
	}
	return name, nil
}

// nameFile holds the name a clone was cloned from.
func nameFile(stateDir, root string) string {
	return filepath.Join(snapshot.StoreDir(stateDir, root), "remote-name")
}

func statusFile(stateDir, root string) string {
	return statedir.ReplicationFile(stateDir, root)
}

// ReadStatus is the replication status last written for the workspace, or
// nil if there is none.
func ReadStatus(stateDir, root string) *api.Replication {
	return api.ReadReplicationFile(statusFile(stateDir, root))
}

func writeStatus(stateDir, root string, s api.Replication) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(statusFile(stateDir, root), append(b, '\n'), 0o600)
}

// progress fills s's position from the store: the cursor, how many
// checkpoints and journal entries come after it, and whether retention
// holds them over budget (the retention_size).
func progress(st *store.Store, r *remote.Remote, name string, budget int64, s *api.Replication) error {
	cur, err := remote.Position(st, r, name)
	if err != nil {
		return err
	}
	s.Remote, s.Workspace = r.URL, name
	s.ReplicatedCheckpointID, s.ReplicatedSeq = cur.CheckpointID, cur.Seq
	s.PendingCheckpoints, s.PendingChanges = 0, 0
	if head := st.Head(); head > cur.Seq {
		s.PendingChanges = head - cur.Seq
	}
	err = st.View(func(rd *store.Reader) error {
		return rd.CheckpointsAfterOrd(cur.Seq, cur.Ord, func(store.Checkpoint) error {
			s.PendingCheckpoints++
			return nil
		})
	})
	s.RetentionHeld = s.PendingCheckpoints > 0 && budget > 0 && st.Size() > budget
	return err
}

// Status is the workspace's replication status now, from its store (the
// position) and its status file (the last attempt and error); nil without
// a remote.
func Status(cfg *config.Config, ws *snapshot.Workspace) (*api.Replication, error) {
	if cfg.Remote == "" {
		return nil, nil
	}
	r, err := Open(cfg, "")
	if err != nil {
		return nil, err
	}
	name, err := Name(cfg, ws.Root())
	if err != nil {
		return nil, err
	}
	s := ReadStatus(cfg.StateDir, ws.Root())
	if s == nil || s.Remote != r.URL || s.Workspace != name {
		s = &api.Replication{}
	}
	return s, progress(ws.Store(), r, name, cfg.RetentionSize, s)
}

// isRefused: a failure no retry mends by itself soon (another writer).
func isRefused(err error) bool { return errors.Is(err, remote.ErrOtherWriter) }
