package drift

import "errors"

// invalidError is bad input: it reads as its own message, and Is ErrInvalid.
type invalidError struct{ err error }

func (e invalidError) Error() string        { return e.err.Error() }
func (e invalidError) Unwrap() error        { return e.err }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// Invalid marks err as the caller's bad input (exit 2).
func Invalid(err error) error {
	if err == nil || errors.Is(err, ErrInvalid) {
		return err
	}
	return invalidError{err}
}
