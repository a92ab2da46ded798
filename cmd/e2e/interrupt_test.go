package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startCkpt starts the client in the workspace without waiting for it.
func (ws *workspace) startCkpt(stdout, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	ws.t.Helper()
	cmd := exec.Command(ckptBin, args...)
	cmd.Dir, cmd.Env = ws.root, ws.env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		ws.t.Fatal(err)
	}
	return cmd
}

// interruptAndWait sends SIGINT to cmd after delay and returns its exit
// code, failing the test unless it exits within a few seconds.
func interruptAndWait(t *testing.T, cmd *exec.Cmd, delay time.Duration) int {
	t.Helper()
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGINT)
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
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("ckpt %s did not exit within 15s of SIGINT", strings.Join(cmd.Args[1:], " "))
	}
	return -1
}

// waitHasOpen waits until cmd's process has path open: a ckpt waiting for
// a lock has opened its file, and has set up its SIGINT handling before.
// A SIGINT sent earlier, on a loaded machine, could kill a process that is
// still starting instead.
func waitHasOpen(t *testing.T, cmd *exec.Cmd, path string) {
	t.Helper()
	fds := fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)
	for deadline := time.Now().Add(commandTimeout); ; time.Sleep(10 * time.Millisecond) {
		entries, _ := os.ReadDir(fds)
		for _, e := range entries {
			if target, _ := os.Readlink(filepath.Join(fds, e.Name())); target == path {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("ckpt %s did not open %s within %s", strings.Join(cmd.Args[1:], " "), path, commandTimeout)
		}
	}
}

// TestInterruptExits130: Ctrl-C on a command that waits (here for another
// ckpt holding the workspace's store) ends it at once with exit 130 (the
// shell's convention: 128+SIGINT), one line on stderr and, with --json,
// one {"error": ...} object; nothing is cut.
func TestInterruptExits130(t *testing.T) {
	ws := newWorkspace(t, embedded)
	ws.write("a.txt", "a\n")
	ws.start()
	var log logJSON
	ws.ckptJSON(&log, "log")

	locks, _ := filepath.Glob(filepath.Join(ws.state, "workspaces", "*", "lock"))
	if len(locks) != 1 {
		t.Fatalf("want one store lock under %s, got %v", ws.state, locks)
	}
	f, err := os.OpenFile(locks[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	for _, json := range []bool{false, true} {
		args := []string{"checkpoint", "-m", "interrupted"}
		if json {
			args = append(args, "--json")
		}
		var stdout, stderr bytes.Buffer
		cmd := ws.startCkpt(&stdout, &stderr, args...)
		waitHasOpen(t, cmd, locks[0])
		start := time.Now()
		code := interruptAndWait(t, cmd, 100*time.Millisecond)
		if code != 130 {
			t.Errorf("ckpt %s on SIGINT: exit %d, want 130\nstderr: %s", strings.Join(args, " "), code, stderr.String())
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("ckpt %s took %s to stop on SIGINT (lock_timeout is 30s)", strings.Join(args, " "), took)
		}
		if got := stderr.String(); got != "ckpt: interrupted\n" {
			t.Errorf("stderr on SIGINT: %q, want %q", got, "ckpt: interrupted\n")
		}
		wantOut := ""
		if json {
			wantOut = "{\"error\":\"interrupted\"}\n"
		}
		if stdout.String() != wantOut {
			t.Errorf("stdout on SIGINT (json %v): %q, want %q", json, stdout.String(), wantOut)
		}
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	var log2 logJSON
	ws.ckptJSON(&log2, "log")
	if len(log2.Checkpoints) != len(log.Checkpoints) {
		t.Errorf("an interrupted checkpoint was cut: %d checkpoints before, %d after", len(log.Checkpoints), len(log2.Checkpoints))
	}
}

// TestInterruptExecClosesTheWindow: SIGINT to ckpt exec is passed on to
// the command; the tool window is still closed (its changes reported) and
// ckpt exits as the command did: 130, killed by SIGINT.
func TestInterruptExecClosesTheWindow(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		var stdout, stderr bytes.Buffer
		cmd := ws.startCkpt(&stdout, &stderr, "exec", "--session", "s", "--run", "r1", "--call", "c1", "--json", "--",
			"sh", "-c", "echo b > b.txt; exec sleep 30")
		for deadline := time.Now().Add(commandTimeout); !ws.exists("b.txt"); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("ckpt exec did not run its command within %s", commandTimeout)
			}
		}
		code := interruptAndWait(t, cmd, 200*time.Millisecond)
		if code != 130 {
			t.Errorf("ckpt exec on SIGINT: exit %d, want 130 (the command's)\nstderr: %s", code, stderr.String())
		}
		var te toolEndJSON
		if err := decodeOne(stdout.String(), &te); err != nil {
			t.Fatalf("ckpt exec --json on SIGINT: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
		}
		if te.ToolCallID != "c1" {
			t.Errorf("tool end on SIGINT: tool_call_id %q, want c1", te.ToolCallID)
		}
		assertChanges(t, "the interrupted tool call", te.Changes, want("added b.txt"))
	})
}
