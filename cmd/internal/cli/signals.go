package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// signalDelay is how long after its start the ckpt binary begins to handle
// SIGINT and SIGTERM itself. Handling them (os/signal) costs a start of
// ckpt about a millisecond of CPU, a locked thread and tens of context
// switches, as much as the rest of a status through the daemon; most
// commands are over well before a person could press Ctrl-C. Before the
// delay the signal's default action ends ckpt (exit by the signal, 130 in
// a shell), which loses nothing: the client holds no store, its own files
// are written atomically, and the daemon carries a call that changes state
// to its end whether the client waits for the answer or not.
const signalDelay = 50 * time.Millisecond

// interruptContext is the command's context: cancelled by the first SIGINT
// or SIGTERM, after which the next one ends ckpt at once. With lazy, the
// signals are handled from signalDelay on. stop lets go of it all.
func interruptContext(lazy bool) (ctx context.Context, stop func()) {
	if !lazy {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		context.AfterFunc(ctx, stop) // a second Ctrl-C ends ckpt at once
		return ctx, stop
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	stopped, installed := false, false
	unnotify := func() {}
	install := func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped || installed {
			return
		}
		installed = true
		nctx, nstop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		context.AfterFunc(nctx, func() {
			nstop() // a second Ctrl-C ends ckpt at once
			cancel()
		})
		unnotify = nstop
	}
	t := time.AfterFunc(signalDelay, install)
	handleSignalsNow = install
	return ctx, func() {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		unnotify()
		cancel()
	}
}

// handleSignalsNow makes ckpt handle SIGINT and SIGTERM from now on, if it
// does not yet: before it waits for a person (a y/N question), who may
// well answer with Ctrl-C within signalDelay.
var handleSignalsNow = func() {}

// handlesSignalsAtOnce: the command must handle SIGINT from its first
// moment. `ckpt exec` passes it on to the command it runs and closes the
// tool window after it; ckptd running a command holds the store.
func handlesSignalsAtOnce(o Options, args []string) bool {
	return o.Engine != nil || commandName(args) == "exec"
}
