// Package exitcode maps errors to the exit codes of ckpt and ckptd
// (CONTRACT.md): the one table both binaries use, so that a kind of
// failure (package fault) exits the same way from either.
package exitcode

import (
	"errors"
	"fmt"

	"github.com/ckptdev/ckpt/fault"
)

// The exit codes.
const (
	OK          = 0
	Failure     = 1   // any failure that is not one of the below
	BadInput    = 2   // fault.Invalid: bad flags, ids, paths, config; nothing changed
	Interrupted = 130 // 128+SIGINT: the user stopped the command (Ctrl-C)
)

// ErrInterrupted is a command stopped by SIGINT or SIGTERM before it
// finished.
var ErrInterrupted = errors.New("interrupted")

// Coded is an error that carries its own exit code (a child's, passed
// through by ckpt exec).
type Coded struct{ Code int }

func (e Coded) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Of is err's exit code.
func Of(err error) int {
	var c Coded
	switch {
	case err == nil:
		return OK
	case errors.As(err, &c):
		return c.Code
	case errors.Is(err, ErrInterrupted):
		return Interrupted
	case errors.Is(err, fault.Invalid):
		return BadInput
	}
	return Failure
}

// Usage marks err as a bad command line (fault.Invalid).
func Usage(err error) error { return fault.Mark(err, fault.Invalid) }

// DaemonHelp is ckptd's exit codes, for its --help.
const DaemonHelp = `Exit codes:
  0    success, and a clean shutdown on SIGINT or SIGTERM
  1    failure (another ckptd holds the state directory, the store failing)
  2    bad input: a bad flag, a missing or unusable directory, a bad config
       value`

// Help is ckpt's exit codes, for a command's --help.
const Help = `Exit codes:
  0    success
  1    failure (a restore that refused a path, the store or daemon failing)
  2    bad input: a bad flag, an unknown or malformed checkpoint, a path
       outside the workspace, a bad config value; nothing was changed
  130  interrupted (Ctrl-C)`
