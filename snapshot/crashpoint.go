package snapshot

import (
	"os"
	"strconv"
	"time"
)

// Crash hooks for the crash tests (crash_test.go, and cmd/e2e's), which
// run a restore or a run or tool operation in a child process and make it exit (status 3) at a chosen point, then check
// what the next Open makes of it. Both are read from the environment once;
// unset, they cost a comparison.
var (
	// crashAfter, when positive, exits after that many changes made on
	// disk (CKPT_TEST_CRASH_AFTER).
	crashAfter, _ = strconv.Atoi(os.Getenv("CKPT_TEST_CRASH_AFTER"))
	// crashAt names a step of the restore to exit at (CKPT_TEST_CRASH_AT).
	crashAt = os.Getenv("CKPT_TEST_CRASH_AT")
	// slowDrift makes Tx.Drift take 50 ms longer (CKPT_TEST_SLOW_DRIFT=1):
	// time for the writes a test keeps making to be captured, were the
	// capture not held off until the Tx commits.
	slowDrift = os.Getenv("CKPT_TEST_SLOW_DRIFT") == "1"
	// holdRestore makes a restore wait that long once its guard and
	// intent are durable (CKPT_TEST_HOLD_RESTORE=DURATION): time for a
	// test to ask for another restore while it is in flight.
	holdRestore, _ = time.ParseDuration(os.Getenv("CKPT_TEST_HOLD_RESTORE"))
	// slowRestore makes a restore begin its changes on disk one at a
	// time, this long apart (CKPT_TEST_SLOW_RESTORE, a duration): time
	// for a test to kill -9 the process midway.
	slowRestore, _ = time.ParseDuration(os.Getenv("CKPT_TEST_SLOW_RESTORE"))
)

// The steps crashAt can name: those of Update (run and tool start and
// end), then those of a restore, in the order it reaches them.
const (
	// Update's writes (a restore's guard and intent) are made, not
	// committed.
	crashCommit = "commit"
	// Update's commit is made, not synced: also what a power loss after a
	// process crash cannot take away (the commit is in the page cache).
	crashCommitted = "committed"

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

func holdRestorePoint() {
	if holdRestore > 0 {
		time.Sleep(holdRestore)
	}
}

func slowPoint() {
	if slowDrift {
		time.Sleep(50 * time.Millisecond)
	}
}
