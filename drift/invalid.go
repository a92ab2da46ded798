package drift

import "github.com/ckptdev/ckpt/integration/api"

// Invalid marks err as the caller's bad input (exit 2): it Is ErrInvalid.
func Invalid(err error) error { return api.Invalid(err) }
