package api

import (
	"errors"

	"github.com/ckptdev/ckpt/fault"
)

// ErrInvalid is bad input (fault.Invalid): an unknown or malformed
// checkpoint, a checkpoint that is not the run's, a path outside the
// workspace, a malformed request. Nothing was changed. The daemon answers
// it with 400; the CLI exits 2 on it.
var ErrInvalid = fault.Invalid

// Invalid marks err as the caller's bad input (fault.Invalid).
func Invalid(err error) error { return fault.Mark(err, fault.Invalid) }

// The statuses of the socket API's error answers (ErrorBody). Any other
// failure of the engine is 500. They are net/http's numbers, written out:
// the client speaks HTTP without linking net/http.
const (
	StatusInvalid     = 400 // http.StatusBadRequest: fault.Invalid
	StatusNotServed   = 404 // http.StatusNotFound: fault.NotFound, a workspace the daemon does not serve, or an unknown route
	StatusWrongMethod = 405 // http.StatusMethodNotAllowed: the route takes another method
	StatusConflict    = 409 // http.StatusConflict: fault.Conflict
	StatusBusy        = 503 // http.StatusServiceUnavailable: fault.Busy
	StatusFull        = 507 // http.StatusInsufficientStorage: fault.Full, the daemon's state directory is full (syscall.ENOSPC)
	statusInternal    = 500 // http.StatusInternalServerError
)

// statusOfKind is the one table between fault's kinds and the socket API's
// statuses, read both ways by StatusOf and ErrorOf. fault.Refused has no
// status of its own: a refusal the caller asked for is marked Invalid, and
// any other is the daemon failing (500).
var statusOfKind = []struct {
	kind   error
	status int
}{
	{fault.Invalid, StatusInvalid},
	{fault.NotFound, StatusNotServed},
	{fault.Conflict, StatusConflict},
	{fault.Busy, StatusBusy},
	{fault.Full, StatusFull},
}

// StatusOf is the status an engine error is answered with: its kind's
// (statusOfKind), else 500.
func StatusOf(err error) int {
	for _, k := range statusOfKind {
		if errors.Is(err, k.kind) {
			return k.status
		}
	}
	return statusInternal
}

// ErrorOf turns an error answer back into an error of the kind the daemon
// had (a StatusInvalid answer Is fault.Invalid, a StatusFull one Is
// syscall.ENOSPC); it reads as the daemon's message.
func ErrorOf(status int, msg string) error {
	err := errors.New(msg)
	for _, k := range statusOfKind {
		if k.status == status {
			return fault.Mark(err, k.kind)
		}
	}
	return err
}
