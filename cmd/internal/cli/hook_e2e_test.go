package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/cmd/internal/testbin"
	"github.com/ckptdev/ckpt/integration/api"
)

// hookBuildCkpt returns the real ckpt binary.
func hookBuildCkpt(t *testing.T) string {
	t.Helper()
	bin, err := hookBuild(t, "ckpt")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// hookBuild returns the real binary of cmd/NAME (ckpt or ckptd), built once
// for all test binaries (testbin.Build).
func hookBuild(t *testing.T, name string) (string, error) {
	t.Helper()
	bins, err := testbin.Build()
	if err != nil {
		return "", err
	}
	if name == "ckptd" {
		return bins.Ckptd, bins.CkptdErr
	}
	return filepath.Join(bins.Dir, name), nil
}

// hookStartDaemon starts `ckptd watch ws` and waits until it serves ws;
// the test's cleanup stops it.
func hookStartDaemon(t *testing.T, ckptd, ckpt string, env []string, ws string) {
	t.Helper()
	logf, err := os.Create(filepath.Join(t.TempDir(), "ckptd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(ckptd, "watch", ws)
	cmd.Dir, cmd.Env = ws, env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start ckptd: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	poll := append(append([]string(nil), env...), "CKPT_LOCK_TIMEOUT=200ms")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-done:
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("ckptd exited early:\n%s", log)
		default:
		}
		r := hookExec(t, ckpt, poll, ws, nil, "-C", ws, "status", "--json")
		var s api.Status
		if r.code == 0 && json.Unmarshal([]byte(r.stdout), &s) == nil && s.Daemon.Running {
			return
		}
	}
	log, _ := os.ReadFile(logf.Name())
	t.Fatalf("ckptd does not serve %s after 30s:\n%s", ws, log)
}

// hookEnv is the environment without the caller's ckpt and Claude Code
// settings, with state, socket and config in tmp.
func hookEnv(tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CKPT_") || strings.HasPrefix(kv, "CLAUDE_") || strings.HasPrefix(kv, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"CKPT_STATE_DIR="+filepath.Join(tmp, "state"),
		"CKPT_SOCKET="+filepath.Join(tmp, "no-daemon.sock"),
		"CKPT_AUTOSTART=0", // a test that wants a daemon starts it
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "xdg-state"),
	)
}

type hookRun struct {
	stdout, stderr string
	code           int
}

func hookExec(t *testing.T, bin string, env []string, dir string, stdin []byte, args ...string) hookRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("ckpt %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// TestHookClaudeCodeEndToEnd drives the real binary as Claude Code would:
// a turn with a Bash sed, then a person's edit, then the next prompt;
// without a daemon and with ckptd watching.
func TestHookClaudeCodeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	sedBin, err := exec.LookPath("sed")
	if err != nil {
		t.Skip("no sed")
	}
	bin := hookBuildCkpt(t)
	t.Run("embedded", func(t *testing.T) { hookScenario(t, bin, "", sedBin) })
	t.Run("daemon", func(t *testing.T) {
		ckptd, err := hookBuild(t, "ckptd")
		if err != nil {
			t.Skipf("no daemon to test with: %v", err)
		}
		hookScenario(t, bin, ckptd, sedBin)
	})
}

func hookScenario(t *testing.T, bin, ckptd, sedBin string) {
	var err error
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	for name, content := range map[string]string{
		"a.txt":     "foo\nkeep\n",
		"b.txt":     "hello\n",
		"sub/c.txt": "c\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		t.Fatal(err)
	}
	env := hookEnv(tmp)
	if ckptd != "" {
		hookStartDaemon(t, ckptd, bin, env, ws)
	}
	const session = "5d1c7a4e-9f8b-4c2d-a1e0-3b6f2d9c8e71"
	hook := func(payload map[string]any) hookRun {
		t.Helper()
		payload["session_id"] = session
		payload["transcript_path"] = filepath.Join(tmp, "transcript.jsonl")
		payload["permission_mode"] = "default"
		if _, ok := payload["cwd"]; !ok {
			payload["cwd"] = ws
		}
		b, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		// The hook runs from Claude Code's directory, not the workspace.
		r := hookExec(t, bin, env, tmp, b, "hook", "claude-code")
		if r.code != 0 {
			t.Fatalf("hook %s: exit %d\nstdout: %s\nstderr: %s", payload["hook_event_name"], r.code, r.stdout, r.stderr)
		}
		return r
	}

	// Turn 1: the agent runs sed through Bash.
	if r := hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "replace foo with bar in a.txt"}); r.stdout != "" {
		t.Errorf("first prompt: stdout %q, want nothing (no drift)", r.stdout)
	}
	read := map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(ws, "a.txt")}, "tool_use_id": "toolu_01Read"}
	hook(withEvent(read, "PreToolUse"))
	hook(withEvent(read, "PostToolUse"))
	const sedCmd = "sed -i 's/foo/bar/' a.txt"
	bash := map[string]any{
		"tool_name":   "Bash",
		"tool_input":  map[string]any{"command": sedCmd, "description": "Replace foo with bar"},
		"tool_use_id": "toolu_01Sed",
	}
	hook(withEvent(bash, "PreToolUse"))
	sed := exec.Command(sedBin, "-i", "s/foo/bar/", "a.txt")
	sed.Dir = ws
	if out, err := sed.CombinedOutput(); err != nil {
		t.Fatalf("sed: %v\n%s", err, out)
	}
	post := withEvent(bash, "PostToolUse")
	post["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
	if r := hook(post); r.stdout != "" {
		t.Errorf("post tool use: stdout %q, want nothing", r.stdout)
	}
	wantUndo := `{"systemMessage":"ckpt: to undo this turn: ckpt revert --session ` + session + ` --run turn-1"}` + "\n"
	if r := hook(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false}); r.stdout != wantUndo {
		t.Errorf("stop: stdout %q, want %q (the one-line undo, shown to the person)", r.stdout, wantUndo)
	}

	// The run's diff is exactly the sed'ed file.
	r := hookExec(t, bin, env, tmp, nil, "-C", ws, "diff", "--session", session, "--run", "turn-1", "--json")
	if r.code != 0 {
		t.Fatalf("ckpt diff: exit %d: %s", r.code, r.stderr)
	}
	var d api.RunDiff
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("ckpt diff output %q: %v", r.stdout, err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "a.txt" || d.Files[0].Kind != "modified" {
		t.Errorf("run diff files %+v, want exactly a.txt modified", d.Files)
	}
	if d.CheckpointID == "" || d.WorkspaceDrifted {
		t.Errorf("run diff: checkpoint %q (want the end of turn), drifted %v", d.CheckpointID, d.WorkspaceDrifted)
	}

	// The Bash call had its own window: a pre_write checkpoint with its command.
	r = hookExec(t, bin, env, tmp, nil, "-C", ws, "log", "--json")
	var log api.Log
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatalf("ckpt log output %q: %v", r.stdout, err)
	}
	var windows []api.Checkpoint
	for _, cp := range log.Checkpoints {
		if cp.Reason == "pre_write" {
			windows = append(windows, cp)
		}
	}
	if len(windows) != 1 || windows[0].ToolCallID != "toolu_01Sed" || windows[0].Message != sedCmd || windows[0].RunID != "turn-1" {
		t.Errorf("pre_write checkpoints %+v, want one for toolu_01Sed", windows)
	}

	// The person edits b.txt between turns; the next prompt (from a
	// subdirectory) tells the agent.
	if err := os.WriteFile(filepath.Join(ws, "b.txt"), []byte("hello, edited by the person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "now the tests", "cwd": filepath.Join(ws, "sub")})
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("second prompt: stdout %q: %v", r.stdout, err)
	}
	ctx := out.HookSpecificOutput.AdditionalContext
	if out.HookSpecificOutput.HookEventName != "UserPromptSubmit" || !strings.Contains(ctx, `modified: "b.txt"`) {
		t.Errorf("second prompt: output %+v, want b.txt's drift in additionalContext", out)
	}
	if strings.Contains(ctx, "a.txt") || !strings.Contains(ctx, "run "+session+"/turn-2") {
		t.Errorf("second prompt: context names the agent's own change or the wrong run:\n%s", ctx)
	}
	hook(map[string]any{"hook_event_name": "Stop"})
	r = hookExec(t, bin, env, tmp, nil, "-C", ws, "diff", "--session", session, "--run", "turn-2", "--json")
	d = api.RunDiff{}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("ckpt diff output %q: %v", r.stdout, err)
	}
	if len(d.Files) != 0 || !d.WorkspaceDrifted {
		t.Errorf("turn-2 diff: files %+v (want none: b.txt was the person's), drifted %v (want true)", d.Files, d.WorkspaceDrifted)
	}

	// The hook's state lost: the next prompt skips the ids already used.
	stateFile := filepath.Join(tmp, "state", "hooks", "claude-code", session+".json")
	if err := os.Remove(stateFile); err != nil {
		t.Fatal(err)
	}
	hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "again"})
	var st struct {
		Run string `json:"run_id"`
	}
	if b, err := os.ReadFile(stateFile); err != nil || json.Unmarshal(b, &st) != nil || st.Run != "turn-3" {
		t.Errorf("after losing the state: %s (%v), want run turn-3", b, err)
	}
	hook(map[string]any{"hook_event_name": "Stop"})
}

func withEvent(m map[string]any, event string) map[string]any {
	c := map[string]any{"hook_event_name": event}
	for k, v := range m {
		c[k] = v
	}
	return c
}

// TestHookClaudeCodeNeverBlocks: bad input and failures exit 1 with one
// line on stderr, never 2 (which Claude Code reads as "block the tool").
func TestHookClaudeCodeNeverBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	bin := hookBuildCkpt(t)
	tmp := t.TempDir()
	env := hookEnv(tmp)
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"not json", `{"hook_event_name": "PreToolUse", "session_id": `, nil, "bad hook input: not a JSON object"},
		{"no session", `{"hook_event_name": "PreToolUse", "tool_name": "Bash"}`, nil, "bad hook input: no session_id"},
		{"extra argument", `{}`, []string{"extra"}, "takes no arguments"},
		{"unknown flag", `{}`, []string{"--bogus"}, "unknown flag"},
		{"workspace missing", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_use_id":"t","cwd":"` + filepath.Join(tmp, "gone") + `"}`, nil, "gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"hook", "claude-code"}, tt.args...)
			r := hookExec(t, bin, env, tmp, []byte(tt.stdin), args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1 (stderr %q)", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if !strings.HasPrefix(r.stderr, "ckpt: hook claude-code: ") || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line with %q", r.stderr, tt.want)
			}
		})
	}
	// An event ckpt does not act on, or a read-only tool: nothing, exit 0.
	for _, p := range []string{
		`{"hook_event_name":"Notification","session_id":"s","message":"hi"}`,
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Grep","tool_input":{"pattern":"x"},"tool_use_id":"t"}`,
	} {
		if r := hookExec(t, bin, env, tmp, []byte(p), "hook", "claude-code"); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", p, r.code, r.stdout, r.stderr)
		}
	}
}
