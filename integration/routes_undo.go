package integration

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

// The routes of the two undo verbs, revert and history, kept beside their
// client methods.
func init() {
	engineRoutes["/v1/revert"] = engineRoute{http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.RevertRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.Revert(ctx, req))
	}}
	engineRoutes["/v1/history"] = engineRoute{http.MethodGet, false, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		q := r.URL.Query()
		req := api.HistoryRequest{Path: q.Get("path")}
		if n := q.Get("n"); n != "" {
			var err error
			if req.N, err = strconv.Atoi(n); err != nil || req.N < 0 {
				return nil, drift.Invalid(fmt.Errorf("n=%q is not a count", n))
			}
		}
		return answer(e.History(ctx, req))
	}}
}

// Revert is POST /v1/revert.
func (w *WorkspaceClient) Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error) {
	return call[api.RevertResult](ctx, w, http.MethodPost, "/v1/revert", w.query(), req)
}

// History is GET /v1/history.
func (w *WorkspaceClient) History(ctx context.Context, req api.HistoryRequest) (api.History, error) {
	return call[api.History](ctx, w, http.MethodGet, "/v1/history", w.query("path", req.Path, "n", strconv.Itoa(req.N)), nil)
}
