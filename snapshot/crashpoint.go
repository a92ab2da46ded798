package snapshot

import (
	"os"
	"strconv"
)

// Crash hooks for the crash tests (crash_test.go), which run a restore in
// a child process and make it exit (status 3) at a chosen point, then check
// what the next Open makes of it. Both are read from the environment once;
// unset, they cost a comparison.
var (
	// crashAfter, when positive, exits after that many changes made on
	// disk (CKPT_TEST_CRASH_AFTER).
	crashAfter, _ = strconv.Atoi(os.Getenv("CKPT_TEST_CRASH_AFTER"))
	// crashAt names a step of the restore to exit at (CKPT_TEST_CRASH_AT).
	crashAt = os.Getenv("CKPT_TEST_CRASH_AT")
)

// The steps crashAt can name, in the order a restore reaches them.
const (
	// The guard and the intent are durable; nothing on disk changed yet.
	crashIntent = "intent"
	// A batch's temp files are written and durable, none renamed.
	crashStaged = "staged"
	// Every change is on disk and durable; the restore is not recorded:
	// also what a power loss leaves when it loses the unsynced commit
	// that finishes the restore.
	crashApplied = "applied"
)

func crashStep(done int) {
	if crashAfter > 0 && done == crashAfter {
		os.Exit(3)
	}
}

func crashPoint(step string) {
	if crashAt == step {
		os.Exit(3)
	}
}
