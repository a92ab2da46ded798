package api

import (
	"fmt"

	"github.com/ckptdev/ckpt/fault"
)

// WaitHeader set to WaitNever on a request for a workspace asks the
// daemon not to hold it while the workspace is being opened or imported
// for the first time (every route but status waits for that otherwise):
// it answers at once with StatusBusy and an ErrorBody whose State and PID
// are set, which ErrorOfBody reads back as a *NotOpenError. An agent's hook
// sends it on every call, so that its first call also stands for the
// question whether the daemon serves the workspace: a hook never waits for
// a first import.
const (
	WaitHeader = "Ckpt-Wait"
	WaitNever  = "never"
)

// ErrNotOpen is the kind of a *NotOpenError (also fault.Busy).
var ErrNotOpen = fault.Sentinel(fault.Busy, "the workspace is not open yet")

// NotOpenError is the answer to a request that does not wait (WaitHeader)
// for a workspace still being opened or imported for the first time.
type NotOpenError struct {
	Root  string // the workspace
	State string // StateOpening or StateImporting
	PID   int    // the daemon's
}

func (e *NotOpenError) Error() string {
	if e.State == StateImporting {
		return fmt.Sprintf("ckptd (pid %d) is importing %s for the first time", e.PID, e.Root)
	}
	return fmt.Sprintf("ckptd (pid %d) is opening %s", e.PID, e.Root)
}

// Unwrap makes errors.Is(err, ErrNotOpen) and errors.Is(err, fault.Busy)
// hold.
func (e *NotOpenError) Unwrap() error { return ErrNotOpen }

// ErrorOfBody is ErrorOf for a decoded ErrorBody: a body with State set is
// a *NotOpenError for root.
func ErrorOfBody(status int, b ErrorBody, root string) error {
	if status == StatusBusy && b.State != "" {
		return &NotOpenError{Root: root, State: b.State, PID: b.PID}
	}
	return ErrorOf(status, b.Error)
}
