package replica

import (
	"context"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store/remote"
)

// Push uploads what the workspace's remote does not have yet (ckpt push),
// and records the outcome in the status file.
func Push(ctx context.Context, cfg *config.Config, ws *snapshot.Workspace) (api.PushResult, error) {
	var out api.PushResult
	p, err := pusher(cfg, ws)
	if err != nil {
		return out, err
	}
	st := api.Replication{LastAttempt: time.Now().UTC()}
	if old := ReadStatus(cfg.StateDir, ws.Root()); old != nil {
		st.LastSuccess = old.LastSuccess
	}
	res, err := p.Push(ctx)
	if err != nil {
		st.LastError = err.Error()
	} else {
		st.LastSuccess = time.Now().UTC()
	}
	if perr := progress(ws.Store(), p.Remote, p.Name, cfg.RetentionSize, &st); perr != nil && err == nil {
		err = perr
	}
	if werr := writeStatus(cfg.StateDir, ws.Root(), st); werr != nil && err == nil {
		err = werr
	}
	out = api.PushResult{Segments: res.Segments, Checkpoints: res.Checkpoints, Blobs: res.Blobs,
		BlobBytes: res.BlobBytes, BlobsPresent: res.BlobsPresent, Replication: st}
	return out, err
}

func pusher(cfg *config.Config, ws *snapshot.Workspace) (*remote.Pusher, error) {
	r, err := Open(cfg, "")
	if err != nil {
		return nil, err
	}
	name, err := Name(cfg, ws.Root())
	if err != nil {
		return nil, err
	}
	return &remote.Pusher{Remote: r, Store: ws.Store(), Name: name, Root: ws.Root()}, nil
}
