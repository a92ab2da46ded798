package daemon

import (
	"context"
	"net/http"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

// The route of ckpt gc:
//
//	POST /v1/gc    GC    api.GCRequest
func init() {
	engineRoutes["/v1/gc"] = engineRoute{http.MethodPost, true, func(ctx context.Context, e *drift.Engine, r *http.Request) (any, error) {
		req, err := body[api.GCRequest](r)
		if err != nil {
			return nil, err
		}
		return answer(e.GC(ctx, req))
	}}
}
