package daemon

import (
	"errors"
	"net/http"

	"github.com/ckptdev/ckpt/integration/api"
)

// A request with api.WaitHeader set to api.WaitNever (an agent's hook)
// is not held while its workspace is being opened or imported for the
// first time: it is answered at once with an *api.NotOpenError.

// notOpen is the error for a request that does not wait, when sp is still
// being opened or imported; nil when it is open or the request waits.
func (s *Server) notOpen(r *http.Request, sp *space) error {
	if r.Header.Get(api.WaitHeader) != api.WaitNever {
		return nil
	}
	if !sp.isReady() {
		return &api.NotOpenError{Root: sp.root, State: api.StateOpening, PID: s.pid}
	}
	if sp.err == nil && sp.served.Importing != nil && sp.served.Importing() != nil {
		return &api.NotOpenError{Root: sp.root, State: api.StateImporting, PID: s.pid}
	}
	return nil
}

// notOpenBody fills in the error answer of a *api.NotOpenError.
func notOpenBody(err error, body *api.ErrorBody) {
	var no *api.NotOpenError
	if errors.As(err, &no) {
		body.State, body.PID = no.State, no.PID
	}
}
