package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// claudeVersion is the Claude Code CLI the real-client tests are pinned to
// (.ci/run installs it).
const claudeVersion = "2.1.332"

// claudeTimeout bounds one `claude -p` turn.
var claudeTimeout = 90 * time.Second

// claudeBinary is the real Claude Code CLI: $CKPT_CLAUDE, else the copy
// .ci/run installs under ~/.cache/ckpt-ci/claude, else `claude` on PATH.
// The test is skipped when none is there or it is not the pinned version,
// and fails instead with CKPT_REAL_CLIENTS=1 (as in CI).
func claudeBinary(t *testing.T) string {
	t.Helper()
	var candidates []string
	if p := os.Getenv("CKPT_CLAUDE"); p != "" {
		candidates = append(candidates, p)
	}
	if home, err := os.UserHomeDir(); err == nil {
		nm := filepath.Join(home, ".cache", "ckpt-ci", "claude", "node_modules", "@anthropic-ai")
		// The platform package's native binary: the wrapper's bin/claude.exe
		// is a stub until its postinstall has run.
		candidates = append(candidates, filepath.Join(nm, "claude-code-linux-x64", "claude"),
			filepath.Join(nm, "claude-code-linux-arm64", "claude"), filepath.Join(nm, "claude-code", "bin", "claude.exe"))
	}
	if p, err := exec.LookPath("claude"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		out, err := exec.Command(c, "--version").Output()
		if err == nil && strings.HasPrefix(string(out), claudeVersion+" ") {
			return c
		}
	}
	msg := fmt.Sprintf("the Claude Code CLI %s is not installed (npm install --prefix ~/.cache/ckpt-ci/claude @anthropic-ai/claude-code@%s, as .ci/run does, or set CKPT_CLAUDE)", claudeVersion, claudeVersion)
	if os.Getenv("CKPT_REAL_CLIENTS") == "1" {
		t.Fatal(msg + "; CKPT_REAL_CLIENTS=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// claudeSession drives the real Claude Code CLI in a workspace against a
// fakeAPI, with the hooks a person installs.
type claudeSession struct {
	ws      *workspace
	bin     string
	api     *fakeAPI
	home    string // the CLI's HOME
	id      string // its session id
	turns   int
	records string // where the recorder hook writes payloads; "" for none
}

// newClaudeSession sets up HOME and .claude/settings.json in ws (the
// hooks point at the ckpt binary under test) and a fake API.
func newClaudeSession(t *testing.T, ws *workspace, script map[string][]apiReply, record bool) *claudeSession {
	t.Helper()
	c := &claudeSession{ws: ws, bin: claudeBinary(t), api: newFakeAPI(t, script),
		home: filepath.Join(ws.base, "claude-home"), id: "8f14e45f-ceea-467f-a0e6-5e1a1c2b3d4e"}
	if err := os.MkdirAll(c.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if record {
		c.records = filepath.Join(ws.base, "hook-payloads")
		if err := os.MkdirAll(c.records, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	installClaudeHooks(t, ws.root, ckptBin, c.records)
	return c
}

// claudeHookEvents are the events ckpt's hooks are registered for, with
// their timeouts in seconds (as integration/claude-code-settings.json).
var claudeHookEvents = map[string]int{
	"UserPromptSubmit": 120, "PreToolUse": 60, "PostToolUse": 60, "PostToolUseFailure": 60,
	"Stop": 60, "StopFailure": 60, "SubagentStop": 60, "SessionEnd": 60,
}

// installClaudeHooks writes <root>/.claude/settings.json as a person
// following integration/HOOKS.md does: every event runs `ckpt hook
// claude-code`, by the absolute path of ckpt. With records set, a second
// hook on every event also saves each payload there.
func installClaudeHooks(t *testing.T, root, ckpt, records string) {
	t.Helper()
	hooks := map[string]any{}
	events := []string{"SessionStart", "SubagentStart"}
	for ev := range claudeHookEvents {
		events = append(events, ev)
	}
	for _, ev := range events {
		var list []map[string]any
		if timeout, ok := claudeHookEvents[ev]; ok {
			list = append(list, map[string]any{"type": "command", "command": ckpt + " hook claude-code", "timeout": timeout})
		}
		if records != "" {
			list = append(list, map[string]any{"type": "command", "command": "cat > " + records + "/$(date +%s%N)-" + ev + ".json"})
		}
		if list == nil {
			continue
		}
		entry := map[string]any{"hooks": list}
		if strings.Contains(ev, "ToolUse") {
			entry["matcher"] = "*"
		}
		hooks[ev] = []any{entry}
	}
	data, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".claude", "settings.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// claudeEnv is the CLI's environment: offline (no telemetry, update
// checks, error reporting or other traffic), pointed at the fake API, with
// its own HOME; ckpt's own settings (state dir) pass through to the hooks.
func (c *claudeSession) env() []string {
	var env []string
	for _, kv := range c.ws.env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+c.home,
		"ANTHROPIC_BASE_URL="+c.api.url,
		"ANTHROPIC_API_KEY=sk-ant-test-dummy",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
		"CLAUDE_CODE_ENABLE_TELEMETRY=0",
		"IS_SANDBOX=1",
	)
}

// streamEvent is one line of --output-format stream-json.
type streamEvent map[string]any

// turn runs one `claude -p PROMPT` turn (resuming the session after the
// first) and returns its stream-json events.
func (c *claudeSession) turn(prompt string) []streamEvent {
	c.ws.t.Helper()
	return c.runTurn(prompt, false)
}

// turnAllowFailure is turn for a turn that ends in an API error.
func (c *claudeSession) turnAllowFailure(prompt string) []streamEvent {
	c.ws.t.Helper()
	return c.runTurn(prompt, true)
}

func (c *claudeSession) runTurn(prompt string, mayFail bool) []streamEvent {
	t := c.ws.t
	t.Helper()
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--model", "claude-sonnet-4-5"}
	if c.turns == 0 {
		args = append(args, "--session-id", c.id)
	} else {
		args = append(args, "--resume", c.id)
	}
	c.turns++
	ctx, cancel := context.WithTimeout(context.Background(), claudeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir, cmd.Env = c.ws.root, c.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("claude turn %d: %s", c.turns, time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil || (err != nil && !mayFail) {
		t.Fatalf("claude -p (turn %d): %v\nstdout:\n%s\nstderr:\n%s\napi requests: %+v", c.turns, err, stdout.String(), stderr.String(), c.api.log())
	}
	var events []streamEvent
	for _, line := range strings.Split(stdout.String(), "\n") {
		var ev streamEvent
		if json.Unmarshal([]byte(line), &ev) == nil {
			events = append(events, ev)
		}
	}
	return events
}

// recordedPayloads are the payloads the recorder hook saved, in the order
// they arrived: file name (time-event) and content.
func (c *claudeSession) recordedPayloads() (names []string, payloads []map[string]any) {
	entries, err := os.ReadDir(c.records)
	if err != nil {
		c.ws.t.Fatal(err)
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(c.records, n))
		if err != nil {
			c.ws.t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		payloads = append(payloads, m)
	}
	return names, payloads
}

// claudeProc is a CLI reading stream-json messages on stdin, as the SDK
// drives it: prompts, and control requests such as an interrupt (what Esc
// does in the terminal).
type claudeProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bytes.Buffer
	mu     *sync.Mutex
	done   chan struct{}
}

func (c *claudeSession) startInteractive() *claudeProc {
	t := c.ws.t
	t.Helper()
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--model", "claude-sonnet-4-5"}
	if c.turns == 0 {
		args = append(args, "--session-id", c.id)
	} else {
		args = append(args, "--resume", c.id)
	}
	c.turns++
	cmd := exec.Command(c.bin, args...)
	cmd.Dir, cmd.Env = c.ws.root, c.env()
	p := &claudeProc{t: t, cmd: cmd, stdout: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan struct{})}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = lockedWriter{p.mu, p.stdout}
	cmd.Stderr = lockedWriter{p.mu, p.stdout}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (p *claudeProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *claudeProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// waitFor waits until cond holds, or fails after claudeTimeout.
func (p *claudeProc) waitFor(what string, cond func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(claudeTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			p.t.Fatalf("claude: waited %s for %s\noutput:\n%s", claudeTimeout, what, p.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *claudeProc) waitFile(path string) {
	p.t.Helper()
	p.waitFor(path, func() bool { _, err := os.Stat(path); return err == nil })
}

// waitResult waits for the turn's result line.
func (p *claudeProc) waitResult() {
	p.t.Helper()
	p.waitFor("a result", func() bool { return strings.Contains(p.output(), `"type":"result"`) })
}

// close ends stdin and waits for the CLI to exit.
func (p *claudeProc) close() {
	p.t.Helper()
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(claudeTimeout):
		p.t.Fatalf("claude did not exit after its stdin closed\noutput:\n%s", p.output())
	}
}
