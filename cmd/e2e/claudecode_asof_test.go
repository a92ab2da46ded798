package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestClaudeCodeReplayInterruptAsOf replays the real CLI's payloads for a
// turn interrupted during a Bash call (testdata/claude-code/interrupt) with
// its real transcript, and has ckpt learn of the interrupt late: the
// transcript follower is held off (it waits for the session's lock) or is
// gone (the next prompt's hook finds the interrupt). The person edits after
// the interrupt and before ckpt ends the run; the run still ends as of the
// interrupt's time in the transcript, so those edits are drift, reported at
// the next prompt, and reverting the interrupted turn keeps them byte for
// byte.
func TestClaudeCodeReplayInterruptAsOf(t *testing.T) {
	for _, late := range []string{"follower held off", "no follower"} {
		t.Run(strings.ReplaceAll(late, " ", "-"), func(t *testing.T) {
			bothModes(t, func(t *testing.T, m mode) { replayLateInterrupt(t, m, late == "no follower") })
		})
	}
}

func replayLateInterrupt(t *testing.T, m mode, killFollower bool) {
	ws := newWorkspace(t, m)
	ws.write("notes.txt", "the person's notes\n")
	ws.start()
	fx := loadFixtures(t, ws, "interrupt")
	transcript := fx[0].payload["transcript_path"].(string)
	lines, err := os.ReadFile(filepath.Join("testdata", "claude-code", "interrupt", "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const mark = `{"parentUuid":"f3e9c09f`
	before, interrupt, ok := bytes.Cut(lines, []byte(mark))
	if !ok {
		t.Fatal("the interrupt fixture has no interrupt line")
	}
	if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, before, 0o644); err != nil {
		t.Fatal(err)
	}
	var session string
	for _, f := range fx {
		if f.event != "UserPromptSubmit" && f.event != "PreToolUse" {
			continue
		}
		session = f.payload["session_id"].(string)
		ws.replay(f.payload)
		if f.event == "PreToolUse" {
			ws.write("x.txt", "agent\n") // the interrupted Bash call's write
		}
	}
	if killFollower {
		stopFollower(t, session)
	}
	time.Sleep(100 * time.Millisecond)

	// Hold the session's lock: a follower that sees the interrupt must wait
	// for it before it can end the run.
	unlock := holdSessionLock(t, ws, session)
	// Claude Code writes the interrupt line when the person presses Esc,
	// with the time.
	at := time.Now()
	line := stampedAt(append([]byte(mark), interrupt...), at)
	tf, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	tf.Write(line)
	tf.Close()
	// The person edits after the interrupt, before ckpt ends the run.
	time.Sleep(300 * time.Millisecond)
	ws.write("p.txt", "the person's\n")
	ws.write("notes.txt", "the person's notes, edited after the interrupt\n")
	time.Sleep(300 * time.Millisecond)
	unlock()
	if !killFollower {
		waitRunEnded(t, ws, session, "turn-1", followWait)
	}

	next := map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": ws.root,
		"transcript_path": transcript, "prompt": "next", "prompt_id": "c0ffee00-0000-4000-8000-000000000002"}
	r := ws.replay(next)
	for _, p := range []string{"p.txt", "notes.txt"} {
		if !strings.Contains(r.stdout, `\"`+p+`\"`) {
			t.Errorf("the next prompt's context %q does not report the person's %s", r.stdout, p)
		}
	}
	var r1 runDiffJSON
	ws.ckptJSON(&r1, "diff", "--session", session, "--run", "turn-1")
	assertChanges(t, "interrupted turn-1", r1.Files, want("added x.txt"))
	var h historyJSON
	ws.ckptJSON(&h, "history", "notes.txt")
	if len(h.Versions) == 0 || h.Versions[0].By != "person" {
		t.Errorf("history of notes.txt: %+v, want the newest version by the person", h.Versions)
	}

	wantTree := ws.tree()
	delete(wantTree, "x.txt")
	var rv revertJSON
	ws.ckptJSON(&rv, "revert", "--session", session, "--run", "turn-1", "--yes")
	assertTree(t, "after revert of the interrupted turn", wantTree, ws.tree())
}

// stopFollower ends the transcript follower of session, started by the
// hook (found by its command line), and waits until it is gone.
func stopFollower(t *testing.T, session string) {
	t.Helper()
	deadline := time.Now().Add(commandTimeout)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if bytes.Contains(cmdline, []byte("--follow-session\x00"+session)) {
				syscall.Kill(pid, syscall.SIGKILL)
				for time.Now().Before(deadline) && syscall.Kill(pid, 0) == nil {
					time.Sleep(10 * time.Millisecond)
				}
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no transcript follower for session %s", session)
}

// stampedAt is a recorded transcript line with the time Claude Code would
// write into it at moment at (the recording's is long past).
func stampedAt(line []byte, at time.Time) []byte {
	return regexp.MustCompile(`"timestamp":"[^"]*"`).ReplaceAll(line,
		[]byte(`"timestamp":"`+at.UTC().Format("2006-01-02T15:04:05.000Z")+`"`))
}

// TestRunEndAsOf: `ckpt run end --as-of TIME` ends the run as of that
// moment: the agent's change before it is the run's, the person's after it
// is drift. A bad time is bad input (exit 2) and leaves the run open.
func TestRunEndAsOf(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.ckptOK("tool", "start", "--session", "s", "--run", "r1", "--call", "c1")
		ws.write("agent.txt", "agent\n")
		time.Sleep(50 * time.Millisecond)
		asOf := time.Now().Format(time.RFC3339Nano)
		time.Sleep(50 * time.Millisecond)
		ws.write("a.txt", "the person's\n")

		for _, bad := range []string{"yesterday", "2026-13-01T00:00:00Z", "1733000000"} {
			ws.assertBadInput("run", "end", "--session", "s", "--run", "r1", "--as-of", bad)
		}
		var end runDiffJSON
		ws.ckptJSON(&end, "run", "end", "--session", "s", "--run", "r1", "--as-of", asOf)
		assertChanges(t, "run r1", end.Files, want("added agent.txt"))
		st := ws.status()
		assertChanges(t, "drift after the end", st.Changes, want("modified a.txt"))
		var te struct {
			Changes []change `json:"changes"`
		}
		ws.ckptJSON(&te, "tool", "end", "--session", "s", "--run", "r1", "--call", "c1")
		assertChanges(t, "the window", te.Changes, want("added agent.txt"))
	})
}

// holdSessionLock takes the lock the hooks of a Claude Code session take
// (its hook state's), until the returned function is called.
func holdSessionLock(t *testing.T, ws *workspace, session string) func() {
	t.Helper()
	dir := filepath.Join(ws.state, "hooks", "claude-code")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, session+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() { lock.Close() }
}

// waitTranscriptInterrupt waits until the session's transcript, which
// Claude Code keeps under its HOME, records an interrupt.
func waitTranscriptInterrupt(t *testing.T, home, session string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		names, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", session+".jsonl"))
		for _, n := range names {
			if b, _ := os.ReadFile(n); bytes.Contains(b, []byte("[Request interrupted by user")) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no transcript of session %s records the interrupt", session)
}
