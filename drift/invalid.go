package drift

import (
	"errors"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/snapshot"
)

// ErrInvalid is fault.Invalid: bad input (an unknown or malformed
// checkpoint, a checkpoint that is not the run's, a path outside the
// workspace). Nothing was changed. The CLI exits 2 on it.
var ErrInvalid = fault.Invalid

// Invalid marks err as the caller's bad input (fault.Invalid).
func Invalid(err error) error { return fault.Mark(err, fault.Invalid) }

func invalid(format string, args ...any) error { return fault.Invalidf(format, args...) }

// asInvalid marks the snapshot errors that are the caller's input: a
// refused path that the caller named is bad input too.
func asInvalid(err error) error {
	if errors.Is(err, snapshot.ErrRefused) {
		return Invalid(err)
	}
	return err
}
