package daemon

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

// The routes of the two undo verbs, revert and history.
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
