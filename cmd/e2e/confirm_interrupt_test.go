package e2e

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConfirmCtrlC: Ctrl-C at the y/N prompt of ckpt restore (and revert)
// on a terminal is no: the first SIGINT ends ckpt at once with exit 130
// and `ckpt: interrupted`, and nothing was restored, no guard cut.
func TestConfirmCtrlC(t *testing.T) {
	for _, verb := range []string{"restore", "revert"} {
		t.Run(verb, func(t *testing.T) {
			bothModes(t, func(t *testing.T, m mode) {
				ws := newWorkspace(t, m)
				ws.write("a.txt", "a1\n")
				ws.start()
				var cp checkpointJSON
				ws.ckptJSON(&cp, "checkpoint")
				ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
				ws.write("a.txt", "a2 by the run\n")
				ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
				before := ws.tree()
				logBefore := ws.logLen()

				master, slave := openPTY(t)
				args := []string{"restore", cp.CheckpointID}
				if verb == "revert" {
					args = []string{"revert", "--session", "s", "--run", "r1"}
				}
				cmd := exec.Command(ckptBin, args...)
				var stdout strings.Builder
				cmd.Dir, cmd.Env = ws.root, ws.env
				cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &stdout, slave
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				seen := make(chan string, 16)
				go func() {
					buf := make([]byte, 4096)
					for {
						n, err := master.Read(buf)
						if n > 0 {
							seen <- string(buf[:n])
						}
						if err != nil {
							close(seen)
							return
						}
					}
				}()
				var out strings.Builder
				deadline := time.After(commandTimeout)
				for !strings.Contains(out.String(), "[y/N]") {
					select {
					case s, ok := <-seen:
						if !ok {
							t.Fatalf("ckpt %s ended before asking:\n%s", verb, out.String())
						}
						out.WriteString(s)
					case <-deadline:
						cmd.Process.Kill()
						t.Fatalf("ckpt %s on a terminal did not ask:\n%s", verb, out.String())
					}
				}
				cmd.Process.Signal(syscall.SIGINT)
				var code int
				select {
				case err := <-done:
					var ee *exec.ExitError
					if errors.As(err, &ee) {
						code = ee.ExitCode()
					}
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					<-done
					t.Fatalf("ckpt %s still waits for its answer 10s after one Ctrl-C", verb)
				}
				// What ckpt wrote last may still be on its way through the
				// terminal to the reader.
				for late := time.After(10 * time.Second); !strings.Contains(out.String(), "ckpt: interrupted"); {
					s, ok := "", true
					select {
					case s, ok = <-seen:
					case <-late:
						ok = false
					}
					out.WriteString(s)
					if !ok {
						break
					}
				}
				if code != 130 || !strings.Contains(out.String(), "ckpt: interrupted") {
					t.Errorf("ckpt %s after Ctrl-C at the prompt: exit %d, want 130 and ckpt: interrupted\n%s", verb, code, out.String())
				}
				if stdout.Len() != 0 {
					t.Errorf("stdout: %q", stdout.String())
				}
				assertTree(t, "after Ctrl-C at the prompt", before, ws.tree())
				if n := ws.logLen(); n != logBefore {
					t.Errorf("%d checkpoints after Ctrl-C at the prompt, want %d (no guard)", n, logBefore)
				}
			})
		})
	}
}
