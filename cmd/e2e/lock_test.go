package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSlowReaderDoesNotHoldTheStore is `ckpt diff --patch | less`: while
// the reader of a command's output has not read it yet, every other ckpt
// command on the workspace still runs at once. An embedded command lets go
// of the store (and its lock) before it writes its answer.
func TestSlowReaderDoesNotHoldTheStore(t *testing.T) {
	const lockTimeout = 10 * time.Second
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m, fmt.Sprintf("CKPT_LOCK_TIMEOUT=%s", lockTimeout))
		var before, after strings.Builder
		for i := range 4000 {
			fmt.Fprintf(&before, "line %5d of a file whose patch is large\n", i)
			fmt.Fprintf(&after, "LINE %5d of a file whose patch is large\n", i)
		}
		ws.write("big.txt", before.String())
		ws.start()
		ws.ckptOK("checkpoint")
		ws.write("big.txt", after.String())

		rd, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		diff := exec.Command(ckptBin, "diff", "--patch")
		diff.Dir, diff.Env, diff.Stdout = ws.root, ws.env, wr
		var stderr strings.Builder
		diff.Stderr = &stderr
		if err := diff.Start(); err != nil {
			t.Fatal(err)
		}
		wr.Close()
		done := make(chan error, 1)
		go func() { done <- diff.Wait() }()
		defer func() {
			diff.Process.Kill()
			<-done
		}()

		// The patch is far larger than the pipe: once the pipe is full,
		// ckpt diff is blocked writing its answer.
		pipeSize, err := unix.FcntlInt(rd.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(commandTimeout)
		for {
			n, err := unix.IoctlGetInt(int(rd.Fd()), unix.TIOCINQ)
			if err != nil {
				t.Fatal(err)
			}
			if n >= pipeSize {
				break
			}
			select {
			case err := <-done:
				done <- err // for the deferred wait
				t.Fatalf("ckpt diff --patch ended (%v) before it filled the pipe (%d of %d bytes)\n%s", err, n, pipeSize, stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("ckpt diff --patch did not fill the pipe within %s (%d of %d bytes)", commandTimeout, n, pipeSize)
			}
			time.Sleep(10 * time.Millisecond)
		}

		startedAt := time.Now()
		r := ws.ckptResult("status", "--json")
		took := time.Since(startedAt)
		if r.code != 0 {
			t.Fatalf("ckpt status while ckpt diff --patch waits for its reader: want exit 0, got\n%s", r)
		}
		if took >= lockTimeout {
			t.Errorf("ckpt status took %s while ckpt diff --patch waited for its reader (lock_timeout %s)", took, lockTimeout)
		}
		ws.ckptOK("checkpoint", "-m", "while a diff is being read")

		out, err := io.ReadAll(rd)
		if err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("ckpt diff --patch: %v\n%s", err, stderr.String())
		}
		done <- nil // for the deferred wait
		if !strings.Contains(string(out), "+LINE  3999 of a file") || len(out) < 4*pipeSize {
			t.Errorf("ckpt diff --patch printed %d bytes, want the whole patch (over %d bytes, ending in line 3999)", len(out), 4*pipeSize)
		}
	})
}

// TestExecDoesNotHoldTheStore is `ckpt exec -- CMD` where CMD takes its
// time or runs ckpt itself (a build script that cuts a checkpoint): the
// store is not held while CMD runs, and the window still reports CMD's
// changes.
func TestExecDoesNotHoldTheStore(t *testing.T) {
	const lockTimeout = 10 * time.Second
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m, fmt.Sprintf("CKPT_LOCK_TIMEOUT=%s", lockTimeout))
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		script := fmt.Sprintf("%s status --json >/dev/null && %s checkpoint -m inner >/dev/null && echo b > b.txt", ckptBin, ckptBin)
		startedAt := time.Now()
		r := ws.ckptResult("exec", "--json", "--session", "s", "--run", "r1", "--call", "c1", "--", "sh", "-c", script)
		var te toolEndJSON
		if err := decodeOne(r.stdout, &te); r.code != 0 || err != nil {
			t.Fatalf("ckpt exec of a command that runs ckpt: want exit 0 and one JSON object (%v)\n%s", err, r)
		}
		if took := time.Since(startedAt); took >= lockTimeout {
			t.Errorf("ckpt exec of a command that runs ckpt took %s (lock_timeout %s)", took, lockTimeout)
		}
		assertChanges(t, "ckpt exec of a command that runs ckpt", te.Changes, want("added b.txt"))
	})
}

// openPTY opens a pseudo-terminal: the master, and the slave for the
// command's stdin and stderr.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// TestConfirmDoesNotHoldTheStore: ckpt restore (and revert) on a
// terminal shows its plan and asks; while the person decides, other ckpt
// commands on the workspace run at once, and it goes ahead once confirmed.
func TestConfirmDoesNotHoldTheStore(t *testing.T) {
	for _, verb := range []string{"restore", "revert"} {
		t.Run(verb, func(t *testing.T) { testConfirmDoesNotHoldTheStore(t, verb) })
	}
}

func testConfirmDoesNotHoldTheStore(t *testing.T, verb string) {
	const lockTimeout = 10 * time.Second
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m, fmt.Sprintf("CKPT_LOCK_TIMEOUT=%s", lockTimeout))
		ws.write("a.txt", "a1\n")
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.write("a.txt", "a2 by the run\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")

		master, slave := openPTY(t)
		args := []string{"restore", cp.CheckpointID}
		if verb == "revert" {
			args = []string{"revert", "--session", "s", "--run", "r1"}
		}
		restore := exec.Command(ckptBin, args...)
		var stdout strings.Builder
		restore.Dir, restore.Env = ws.root, ws.env
		restore.Stdin, restore.Stdout, restore.Stderr = slave, &stdout, slave
		if err := restore.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- restore.Wait() }()
		defer func() {
			restore.Process.Kill()
			<-done
		}()
		prompt := make(chan string, 1)
		go func() {
			var seen []byte
			buf := make([]byte, 4096)
			for {
				n, err := master.Read(buf)
				seen = append(seen, buf[:n]...)
				if strings.Contains(string(seen), "[y/N]") {
					prompt <- string(seen)
					return
				}
				if err != nil {
					prompt <- string(seen)
					return
				}
			}
		}()
		select {
		case p := <-prompt:
			if !strings.Contains(p, "[y/N]") {
				t.Fatalf("ckpt %s on a terminal did not ask:\n%s", verb, p)
			}
		case <-time.After(commandTimeout):
			t.Fatalf("ckpt %s on a terminal did not ask within %s", verb, commandTimeout)
		}

		startedAt := time.Now()
		r := ws.ckptResult("status", "--json")
		if took := time.Since(startedAt); r.code != 0 || took >= lockTimeout {
			t.Fatalf("ckpt status while ckpt %s waits for its answer: took %s (lock_timeout %s)\n%s", verb, took, lockTimeout, r)
		}
		if _, err := master.Write([]byte("y\n")); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			done <- err // for the deferred wait
			if err != nil {
				t.Fatalf("ckpt %s after y: %v\nstdout:\n%s", verb, err, stdout.String())
			}
		case <-time.After(commandTimeout):
			t.Fatalf("ckpt %s did not finish within %s after y", verb, commandTimeout)
		}
		if got := ws.read("a.txt"); got != "a1\n" {
			t.Errorf("after a confirmed %s a.txt is %q, want a1", verb, got)
		}
	})
}
