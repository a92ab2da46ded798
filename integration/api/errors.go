package api

import (
	"errors"
	"net/http"
	"syscall"
)

// ErrInvalid marks bad input: an unknown or malformed checkpoint, a
// checkpoint that is not the run's, a path outside the workspace, a
// malformed request. Nothing was changed. The daemon answers it with 400;
// the CLI exits 2 on it.
var ErrInvalid = errors.New("invalid input")

// invalidError is bad input: it reads as its own message, and Is ErrInvalid.
type invalidError struct{ err error }

func (e invalidError) Error() string        { return e.err.Error() }
func (e invalidError) Unwrap() error        { return e.err }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// Invalid marks err as the caller's bad input.
func Invalid(err error) error {
	if err == nil || errors.Is(err, ErrInvalid) {
		return err
	}
	return invalidError{err}
}

// The statuses of the socket API's error answers (ErrorBody). Any other
// failure of the engine is 500.
const (
	StatusInvalid     = http.StatusBadRequest          // ErrInvalid
	StatusNotServed   = http.StatusNotFound            // a workspace the daemon does not serve, or an unknown route
	StatusWrongMethod = http.StatusMethodNotAllowed    // the route takes another method
	StatusFull        = http.StatusInsufficientStorage // the daemon's state directory is full (syscall.ENOSPC)
)

// StatusOf is the status an engine error is answered with: StatusInvalid
// for bad input, StatusFull for a full file system, else 500.
func StatusOf(err error) int {
	switch {
	case errors.Is(err, ErrInvalid):
		return StatusInvalid
	case errors.Is(err, syscall.ENOSPC):
		return StatusFull
	}
	return http.StatusInternalServerError
}

// ErrorOf turns an error answer back into an error that matches what the
// daemon had: a StatusInvalid answer Is ErrInvalid, a StatusFull one Is
// syscall.ENOSPC; it reads as the daemon's message.
func ErrorOf(status int, msg string) error {
	err := errors.New(msg)
	switch status {
	case StatusInvalid:
		return Invalid(err)
	case StatusFull:
		return fullAnswer{err}
	}
	return err
}

// fullAnswer is the daemon saying its state directory is full.
type fullAnswer struct{ err error }

func (e fullAnswer) Error() string   { return e.err.Error() }
func (e fullAnswer) Unwrap() []error { return []error{e.err, syscall.ENOSPC} }
