// Package engine is the ckpt commands' engine side (cli.Engine): the
// embedded engine over the workspace's store and the MCP server. Only ckptd
// links it; `ckptd ckpt ARGS` runs a ckpt command with it, for the ckpt
// binary, which does not link the store.
package engine

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ckptdev/ckpt/cmd/internal/cli"
	"github.com/ckptdev/ckpt/cmd/internal/progress"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/local"
	ckptmcp "github.com/ckptdev/ckpt/integration/mcp"
	"github.com/ckptdev/ckpt/integration/replica"
	"github.com/ckptdev/ckpt/store"
)

// Engine is the engine side of the ckpt commands.
type Engine struct{}

var _ cli.Engine = Engine{}

// The embedded engine answers every command, review marks included.
var (
	_ cli.Backend   = (*drift.Engine)(nil)
	_ cli.Collector = (*drift.Engine)(nil)
	_ interface {
		Review(ctx context.Context, req api.ReviewRequest) (api.Review, error)
		Reviews(ctx context.Context, session, run string) (api.Reviews, error)
	} = (*drift.Engine)(nil)
)

// Embedded opens the workspace's engine in this process (local.Embedded).
func (Engine) Embedded(ctx context.Context, cfg *config.Config, root string, progress func(done, total int), warn func(string)) (cli.Backend, func() error, error) {
	eng, err := local.Embedded(ctx, cfg, root, progress, warn)
	if err != nil {
		return nil, nil, err
	}
	return eng, eng.Workspace().Close, nil
}

// ImportProgress draws a first import's progress on a terminal
// (progress.Import).
func (Engine) ImportProgress(what string) func(done, total int) { return progress.Import(what) }

// ServeMCP serves ckpt's MCP tools over stdio.
func (Engine) ServeMCP(ctx context.Context, b cli.MCPBackend) error {
	return ckptmcp.NewServer(b, api.Version).Run(ctx, &mcp.StdioTransport{})
}

// Message is the store's one line for a full disk.
func (Engine) Message(err error) (string, bool) {
	if store.IsFull(err) {
		return store.FullMessage(err), true
	}
	return "", false
}

// Replica is replication through integration/replica.
func (Engine) Replica() cli.Replica { return replicaEngine{} }

type replicaEngine struct{}

func (replicaEngine) Push(ctx context.Context, cfg *config.Config, b cli.Backend) (api.PushResult, error) {
	eng, ok := b.(*drift.Engine)
	if !ok {
		return api.PushResult{}, errors.New("push: not an embedded workspace")
	}
	return replica.Push(ctx, cfg, eng.Workspace())
}

func (replicaEngine) Pull(ctx context.Context, cfg *config.Config, b cli.Backend) (api.PullResult, error) {
	eng, ok := b.(*drift.Engine)
	if !ok {
		return api.PullResult{}, errors.New("pull: not an embedded workspace")
	}
	return replica.Pull(ctx, cfg, eng.Workspace())
}

func (replicaEngine) Status(cfg *config.Config, b cli.Backend) (*api.Replication, error) {
	eng, ok := b.(*drift.Engine)
	if !ok {
		return nil, errors.New("replication status: not an embedded workspace")
	}
	return replica.Status(cfg, eng.Workspace())
}

func (replicaEngine) Clone(ctx context.Context, cfg *config.Config, url, target, dir string) (api.CloneResult, error) {
	name, id, err := replica.ParseTarget(target)
	if err != nil {
		return api.CloneResult{}, err
	}
	return replica.Clone(ctx, cfg, url, name, id, dir)
}

func (replicaEngine) List(ctx context.Context, cfg *config.Config, url string) (api.RemoteList, error) {
	return replica.List(ctx, cfg, url)
}

// Main runs `ckptd ckpt [--client=PATH] ARGS...`: the ckpt command line
// ARGS with the engine linked. PATH is the ckpt binary that handed the
// command over.
func Main(args []string) {
	o := cli.Options{Engine: Engine{}, Args: args}
	if len(args) > 0 && len(args[0]) > len("--client=") && args[0][:len("--client=")] == "--client=" {
		o.Client, o.Args = args[0][len("--client="):], args[1:]
	}
	if o.Args == nil {
		o.Args = []string{}
	}
	cli.Main(o)
}
