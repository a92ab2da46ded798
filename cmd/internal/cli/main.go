// Package cli is the ckpt command: people, scripts and agent runtimes
// call it to see drift, cut checkpoints, diff, restore and undo, and to
// mark runs and tool calls. It talks to ckptd when one serves the
// workspace, and otherwise opens the workspace's store itself.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
)

// answered is a failure that the command's answer on stdout already
// reports (a restore that refused a path): with --json, stdout holds that
// one object and no second {"error": ...}.
type answered struct{ err error }

func (e answered) Error() string { return e.err.Error() }
func (e answered) Unwrap() error { return e.err }

// Main runs the ckpt command line and exits.
func Main(o Options) {
	args := o.Args
	if args == nil {
		args = os.Args[1:]
	}
	ctx, stop := interruptContext(!handlesSignalsAtOnce(o, args))
	defer stop()
	opts := &globalOptions{engine: o.Engine, args: args}
	clientPath, runByEngine = o.Client, o.Engine != nil
	cmd := newRootCommand(opts)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	var coded exitcode.Coded
	var done answered
	printed := errors.As(err, &done) // stdout already holds the answer
	switch {
	case err == nil || errors.As(err, &coded):
	case ctx.Err() != nil:
		err = exitcode.ErrInterrupted // whatever the cancelled work returned
	case !opts.entered:
		err = exitcode.Usage(err)
	case o.Engine != nil:
		if msg, ok := o.Engine.Message(err); ok {
			err = errors.New(msg) // one line, whatever wrapped it
		}
	}
	code := exitcode.Of(err)
	if err != nil && !errors.As(err, &coded) {
		fmt.Fprintln(os.Stderr, "ckpt:", err)
		if (opts.json || jsonRequested(args)) && !printed {
			json.NewEncoder(os.Stdout).Encode(map[string]string{"error": err.Error()})
		}
	}
	os.Exit(code)
}

func jsonRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}
