package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestConcurrentRestoreConflict: with the daemon, a restore, undo or revert
// asked for while another restore of the workspace is in flight is
// refused with 409 (exit 1, one line naming why, {"error"} with --json),
// not queued behind it; the first one finishes, and only it changed
// anything (one guard).
func TestConcurrentRestoreConflict(t *testing.T) {
	requireDaemon(t)
	for _, second := range []string{"restore", "revert", "undo"} {
		t.Run(second, func(t *testing.T) {
			ws := newWorkspace(t, daemon, "CKPT_TEST_HOLD_RESTORE=4s")
			ws.write("a.txt", "a1\n")
			ws.start()
			var cp checkpointJSON
			ws.ckptJSON(&cp, "checkpoint")
			ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
			ws.write("a.txt", "a2 by the run\n")
			ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
			logBefore := ws.logLen()

			var out1, err1 bytes.Buffer
			first := ws.startCkpt(&out1, &err1, "restore", cp.CheckpointID, "--yes", "--json")
			// The first is in flight once its guard is in the log: it is
			// held there (CKPT_TEST_HOLD_RESTORE) before it applies.
			for deadline := time.Now().Add(commandTimeout); ws.logLen() == logBefore; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the first restore made no guard within %s", commandTimeout)
				}
			}
			args := map[string][]string{
				"restore": {"restore", cp.CheckpointID, "--yes", "--json"},
				"revert":  {"revert", "--session", "s", "--run", "r1", "--yes", "--json"},
				"undo":    {"undo", "--yes", "--json"},
			}[second]
			started := time.Now()
			r := ws.ckptResult(args...)
			took := time.Since(started)
			var answer struct {
				Error string `json:"error"`
			}
			if r.code != 1 || json.Unmarshal([]byte(r.stdout), &answer) != nil || !strings.Contains(answer.Error, "in flight") ||
				strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "in flight") {
				t.Errorf("ckpt %s while a restore is in flight: want exit 1 and one line saying a restore is in flight, got\n%s", second, r)
			}
			if took > 2*time.Second {
				t.Errorf("ckpt %s waited %s for the restore in flight instead of refusing at once", second, took)
			}
			if code := waitExit(t, first); code != 0 {
				t.Fatalf("the first restore: exit %d\n%s\n%s", code, out1.String(), err1.String())
			}
			if got := ws.read("a.txt"); got != "a1\n" {
				t.Errorf("a.txt after the restore = %q, want a1", got)
			}
			if n := ws.logLen(); n != logBefore+1 {
				t.Errorf("%d checkpoints after, want %d: one guard, the first restore's", n, logBefore+1)
			}
		})
	}
}

// waitExit waits for a started command and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(commandTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("ckpt %s did not finish within %s", strings.Join(cmd.Args[1:], " "), commandTimeout)
	}
	return -1
}
