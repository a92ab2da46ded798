package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
)

func newMCPCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "MCP server over stdio: the agent asks what changed, and reverts its own runs",
		Long: `mcp serves the Model Context Protocol on stdin and stdout, for the agent
itself: drift (what the person changed since its last turn), run_changes
(what a run or one tool call changed, with diffs), history (one path's
versions), restore (named paths only), revert (its own run or one tool
call; conflicts are left alone unless force) and undo (the last restore).
Every change is guarded: undo, or ckpt undo, brings back the state before.

Each tool call connects to the daemon that serves the workspace, or opens
the engine itself (embedded mode) just for that call, so hooks and other
commands are never locked out. ckpt integrate registers it with the
runtimes that speak MCP.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			g.cmd = cmd
			if g.engine == nil {
				return g.execEngine() // the MCP SDK is linked by ckptd only
			}
			err := g.engine.ServeMCP(cmd.Context(), &perCallBackend{g: g})
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) {
				return exitcode.Usage(fmt.Errorf("mcp: stdin is not JSON-RPC: %w", err))
			}
			return err
		},
	}
}

// perCallBackend opens the backend for each call and closes it after:
// the embedded engine holds the store's lock only while it answers.
type perCallBackend struct {
	mu sync.Mutex
	g  *globalOptions
}

func withBackend[T any](p *perCallBackend, ctx context.Context, fn func(backend) (T, error)) (T, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var zero T
	b, err := p.g.open(ctx)
	if err != nil {
		return zero, err
	}
	defer p.g.close()
	return fn(b)
}

func (p *perCallBackend) Status(ctx context.Context) (api.Status, error) {
	return withBackend(p, ctx, func(b backend) (api.Status, error) { return b.Status(ctx) })
}

func (p *perCallBackend) RunDiff(ctx context.Context, req api.RunRequest) (api.RunDiff, error) {
	return withBackend(p, ctx, func(b backend) (api.RunDiff, error) { return b.RunDiff(ctx, req) })
}

func (p *perCallBackend) History(ctx context.Context, req api.HistoryRequest) (api.History, error) {
	return withBackend(p, ctx, func(b backend) (api.History, error) { return b.History(ctx, req) })
}

func (p *perCallBackend) Restore(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error) {
	return withBackend(p, ctx, func(b backend) (api.RestoreResult, error) { return b.Restore(ctx, req) })
}

func (p *perCallBackend) Undo(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error) {
	return withBackend(p, ctx, func(b backend) (api.RestoreResult, error) { return b.Undo(ctx, req) })
}

func (p *perCallBackend) Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error) {
	return withBackend(p, ctx, func(b backend) (api.RevertResult, error) { return b.Revert(ctx, req) })
}
