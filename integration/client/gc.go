package client

import (
	"context"

	"github.com/ckptdev/ckpt/integration/api"
)

// GC is POST /v1/gc.
func (w *WorkspaceClient) GC(ctx context.Context, req api.GCRequest) (api.GC, error) {
	return call[api.GC](ctx, w, methodPost, "/v1/gc", w.query(), req)
}
