package daemon

import (
	"context"
	"net/http"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

// The routes of review marks (the panel's Accept and Reject):
//
//	POST /v1/review    Review    api.ReviewRequest
//	GET  /v1/reviews   Reviews   ?session=S&run=R
func init() {
	engineRoutes["/v1/review"] = engineRoute{http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.ReviewRequest](r)
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
