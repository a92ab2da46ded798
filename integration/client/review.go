package client

import (
	"context"

	"github.com/ckptdev/ckpt/integration/api"
)

// Review is POST /v1/review.
func (w *WorkspaceClient) Review(ctx context.Context, req api.ReviewRequest) (api.Review, error) {
	return call[api.Review](ctx, w, methodPost, "/v1/review", w.query(), req)
}

// Reviews is GET /v1/reviews.
func (w *WorkspaceClient) Reviews(ctx context.Context, session, run string) (api.Reviews, error) {
	return call[api.Reviews](ctx, w, methodGet, "/v1/reviews", w.query("session", session, "run", run), nil)
}
