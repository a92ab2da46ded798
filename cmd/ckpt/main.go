// Command ckpt is the client of ckpt: people, scripts and agent runtimes
// call it to see drift, cut checkpoints, diff, restore and undo, and to
// mark runs and tool calls. It talks to ckptd when one serves the
// workspace, and otherwise opens the workspace's store itself.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/store"
)

// usageError is bad command-line input: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode is the one place that maps errors to CONTRACT.md's exit codes:
// 2 for bad input, 1 for any other failure.
func exitCode(err error) int {
	var ue usageError
	var ce *config.Error
	var xe exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &xe):
		return xe.code
	case errors.As(err, &ue), errors.As(err, &ce), errors.Is(err, drift.ErrInvalid):
		return 2
	}
	return 1
}

// answered is a failure that the command's answer on stdout already
// reports (a restore that refused a path): with --json, stdout holds that
// one object and no second {"error": ...}.
type answered struct{ err error }

func (e answered) Error() string { return e.err.Error() }
func (e answered) Unwrap() error { return e.err }

// exitError carries a child's exit code through (ckpt exec).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := &globalOptions{}
	cmd := newRootCommand(opts)
	err := cmd.ExecuteContext(ctx)
	if err != nil && !opts.entered {
		err = usageError{err}
	}
	code := exitCode(err)
	var xe exitError
	if store.IsFull(err) {
		err = errors.New(store.FullMessage(err)) // one line, whatever wrapped it
	}
	var done answered
	if err != nil && !errors.As(err, &xe) {
		fmt.Fprintln(os.Stderr, "ckpt:", err)
		if (opts.json || jsonRequested(os.Args[1:])) && !errors.As(err, &done) {
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
