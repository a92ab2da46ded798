package drift

import "github.com/ckptdev/ckpt/fault"

// ErrRestoreInFlight is a restore, undo or revert asked for while another
// is in flight in the same engine (a double click in the panel, two
// commands at once against the daemon): it is refused, not queued, since
// it was decided on a plan the first one is changing. Its kind is
// fault.Conflict (409 on the socket).
var ErrRestoreInFlight = fault.Sentinel(fault.Conflict, "a restore of this workspace is in flight; try again when it is done")

// beginRestore marks a restore, undo or revert in flight until done is
// called, or refuses it with ErrRestoreInFlight when one is. A dry run
// changes nothing and is never refused.
func (e *Engine) beginRestore(dryRun bool) (done func(), err error) {
	if dryRun {
		return func() {}, nil
	}
	if !e.restoring.CompareAndSwap(false, true) {
		return nil, ErrRestoreInFlight
	}
	return func() { e.restoring.Store(false) }, nil
}
