package integration

import (
	"context"
	"net/http"

	"github.com/ckptdev/ckpt/drift"
)

// The routes of review marks (the panel's Accept and Reject), kept beside
// their client methods:
//
//	POST /v1/review    Review    drift.ReviewRequest
//	GET  /v1/reviews   Reviews   ?session=S&run=R
func init() {
	engineRoutes["/v1/review"] = engineRoute{http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[drift.ReviewRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.Review(ctx, req))
	}}
	engineRoutes["/v1/reviews"] = engineRoute{http.MethodGet, false, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		q := r.URL.Query()
		return answer(e.Reviews(ctx, q.Get("session"), q.Get("run")))
	}}
}

// Review is POST /v1/review.
func (w *WorkspaceClient) Review(ctx context.Context, req drift.ReviewRequest) (drift.Review, error) {
	return call[drift.Review](ctx, w, http.MethodPost, "/v1/review", w.query(), req)
}

// Reviews is GET /v1/reviews.
func (w *WorkspaceClient) Reviews(ctx context.Context, session, run string) (drift.Reviews, error) {
	return call[drift.Reviews](ctx, w, http.MethodGet, "/v1/reviews", w.query("session", session, "run", run), nil)
}
