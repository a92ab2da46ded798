package fault

import (
	"errors"
	"fmt"
	"syscall"
)

// Kind is one kind of failure. Kinds are compared with errors.Is.
type Kind struct{ name string }

func (k *Kind) Error() string { return k.name }

// The kinds. Invalid is the only one the CLI maps to its own exit code
// (2); the others let a caller react (wait and retry on Busy, say why on
// Full) and travel over the socket as status codes.
var (
	// Invalid is the caller's bad input: an unknown or malformed id, a
	// path outside the workspace, a bad flag or config value. Nothing
	// was changed.
	Invalid = &Kind{"invalid input"}
	// NotFound is a record or route that does not exist.
	NotFound = &Kind{"not found"}
	// Busy is a resource another process holds (the store's lock, the
	// daemon's socket or state directory).
	Busy = &Kind{"busy"}
	// Conflict is a request that contradicts the state it meets.
	Conflict = &Kind{"conflict"}
	// Refused is an operation ckpt will not do for safety: a write through
	// a symlink or outside the workspace, a socket served by another user,
	// an unsafe state directory.
	Refused = &Kind{"refused"}
)

// Full is storage running out of space. It is syscall.ENOSPC itself, so
// that an ENOSPC from any layer (Badger, a file write, the kernel) is of
// this kind without being marked.
var Full error = syscall.ENOSPC

// marked is an error that reads as err and is also of kind.
type marked struct {
	err  error
	kind error
}

func (e marked) Error() string   { return e.err.Error() }
func (e marked) Unwrap() []error { return []error{e.err, e.kind} }

// Mark makes err also of kind (a *Kind, Full, or a Sentinel); its message
// is unchanged. A nil err stays nil, and an err already of kind is
// returned as it is.
func Mark(err, kind error) error {
	if err == nil || errors.Is(err, kind) {
		return err
	}
	return marked{err, kind}
}

// Invalidf is a new error of kind Invalid.
func Invalidf(format string, args ...any) error {
	return Mark(fmt.Errorf(format, args...), Invalid)
}

// Sentinel is a new sentinel error with msg that is also of kind: a
// package's own error value (errors.Is tells it apart) that the layers
// above see as its kind.
func Sentinel(kind error, msg string) error {
	return marked{errors.New(msg), kind}
}

// KindOf is the first of the kinds that err is of, or nil.
func KindOf(err error) error {
	for _, k := range []error{Invalid, NotFound, Busy, Conflict, Refused, Full} {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}
