package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// WorkspaceClient is the daemon's API for one workspace. Its methods have
// the signatures of drift.Engine's (and of the CLI's backend).
type WorkspaceClient struct {
	c      *Client
	root   string
	noWait bool
}

// NoWait is a client for the same workspace whose calls are answered at
// once, with an *api.NotOpenError, while the daemon is still opening the
// workspace or importing it for the first time (api.WaitHeader).
func (w *WorkspaceClient) NoWait() *WorkspaceClient {
	return &WorkspaceClient{c: w.c, root: w.root, noWait: true}
}

// Workspace returns the client for the workspace at root (absolute).
func (c *Client) Workspace(root string) *WorkspaceClient {
	return &WorkspaceClient{c: c, root: root}
}

// Root is the workspace's root.
func (w *WorkspaceClient) Root() string { return w.root }

func (w *WorkspaceClient) query(kv ...string) url.Values {
	q := url.Values{"workspace": {w.root}}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// call makes one engine call for the workspace and decodes a T.
func call[T any](ctx context.Context, w *WorkspaceClient, method, path string, q url.Values, in any) (T, error) {
	var out T
	err := w.c.doWaiting(ctx, !w.noWait, method, path, q, in, &out)
	return out, err
}

// Status is GET /v1/status.
func (w *WorkspaceClient) Status(ctx context.Context) (api.Status, error) {
	return call[api.Status](ctx, w, methodGet, "/v1/status", w.query(), nil)
}

// StatusJSON is GET /v1/status for a caller that prints the answer as
// JSON: body is the answer as the daemon encoded it (one api.Status,
// encoding/json's compact form and a newline) when the daemon runs this
// binary's version, so that it need not be decoded; else body is nil and
// s the answer decoded (the daemon's object may hold fields this version
// does not know, which it must not print).
func (w *WorkspaceClient) StatusJSON(ctx context.Context) (body []byte, s api.Status, err error) {
	body, version, err := w.c.doBody(ctx, !w.noWait, methodGet, "/v1/status", w.query(), nil)
	if err != nil || version == api.Version {
		return body, s, err
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, s, fmt.Errorf("ckptd at %s: malformed answer to /v1/status: %w", w.c.socket, err)
	}
	return nil, s, nil
}

// Checkpoint is POST /v1/checkpoint.
func (w *WorkspaceClient) Checkpoint(ctx context.Context, message string) (api.Checkpoint, error) {
	return call[api.Checkpoint](ctx, w, methodPost, "/v1/checkpoint", w.query(), api.CheckpointBody{Message: message})
}

// Rescan is POST /v1/rescan: the daemon re-walks the workspace before it
// answers.
func (w *WorkspaceClient) Rescan(ctx context.Context) error {
	_, err := call[struct{}](ctx, w, methodPost, "/v1/rescan", w.query(), nil)
	return err
}

// Log is GET /v1/log.
func (w *WorkspaceClient) Log(ctx context.Context, n int) (api.Log, error) {
	return call[api.Log](ctx, w, methodGet, "/v1/log", w.query("n", strconv.Itoa(n)), nil)
}

// Show is GET /v1/show.
func (w *WorkspaceClient) Show(ctx context.Context, id string) (api.Show, error) {
	return call[api.Show](ctx, w, methodGet, "/v1/show", w.query("id", id), nil)
}

// Diff is POST /v1/diff.
func (w *WorkspaceClient) Diff(ctx context.Context, req api.DiffRequest) (api.DiffResult, error) {
	return call[api.DiffResult](ctx, w, methodPost, "/v1/diff", w.query(), req)
}

// RunDiff is POST /v1/run/diff.
func (w *WorkspaceClient) RunDiff(ctx context.Context, req api.RunRequest) (api.RunDiff, error) {
	return call[api.RunDiff](ctx, w, methodPost, "/v1/run/diff", w.query(), req)
}

// RunStart is POST /v1/run/start.
func (w *WorkspaceClient) RunStart(ctx context.Context, session, run string) (api.RunStart, error) {
	return call[api.RunStart](ctx, w, methodPost, "/v1/run/start", w.query(), api.RunBody{Session: session, Run: run})
}

// RunEnd is POST /v1/run/end.
func (w *WorkspaceClient) RunEnd(ctx context.Context, session, run string) (api.RunEnd, error) {
	return w.RunEndAsOf(ctx, session, run, time.Time{})
}

// RunEndAsOf is POST /v1/run/end with as_of (none when asOf is zero).
func (w *WorkspaceClient) RunEndAsOf(ctx context.Context, session, run string, asOf time.Time) (api.RunEnd, error) {
	return call[api.RunEnd](ctx, w, methodPost, "/v1/run/end", w.query(), api.RunBody{Session: session, Run: run, AsOf: asOf})
}

// ToolStart is POST /v1/tool/start.
func (w *WorkspaceClient) ToolStart(ctx context.Context, req api.ToolRequest) (api.Checkpoint, error) {
	return call[api.Checkpoint](ctx, w, methodPost, "/v1/tool/start", w.query(), req)
}

// ToolEnd is POST /v1/tool/end.
func (w *WorkspaceClient) ToolEnd(ctx context.Context, req api.ToolRequest) (api.ToolEnd, error) {
	return call[api.ToolEnd](ctx, w, methodPost, "/v1/tool/end", w.query(), req)
}

// Restore is POST /v1/restore.
func (w *WorkspaceClient) Restore(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error) {
	return call[api.RestoreResult](ctx, w, methodPost, "/v1/restore", w.query(), req)
}

// Undo is POST /v1/undo.
func (w *WorkspaceClient) Undo(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error) {
	return call[api.RestoreResult](ctx, w, methodPost, "/v1/undo", w.query(), req)
}

// Revert is POST /v1/revert.
func (w *WorkspaceClient) Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error) {
	return call[api.RevertResult](ctx, w, methodPost, "/v1/revert", w.query(), req)
}

// History is GET /v1/history.
func (w *WorkspaceClient) History(ctx context.Context, req api.HistoryRequest) (api.History, error) {
	return call[api.History](ctx, w, methodGet, "/v1/history", w.query("path", req.Path, "n", strconv.Itoa(req.N)), nil)
}
