package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hookVia runs `ckpt hook claude-code` in the workspace with extra
// environment and the payload.
func (ws *workspace) hookVia(extra []string, payload string) result {
	ws.t.Helper()
	cmd := exec.Command(ckptBin, "hook", "claude-code")
	cmd.Dir, cmd.Env = ws.root, append(append([]string(nil), ws.env...), extra...)
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: []string{"hook", "claude-code"}, stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		ws.t.Fatal(err)
	}
	return r
}

func hookPayload(event, root, extra string) string {
	return fmt.Sprintf(`{"hook_event_name":%q,"session_id":"s1","cwd":%q%s}`, event, root, extra)
}

// TestHookAsksTheDaemonOnce: with a daemon that serves the workspace,
// each hook of a turn is one request (the run start, the tool start or
// end, the run end; no health question first). A workspace the daemon
// does not serve gets the health question after the "not served" answer,
// as if the hook had asked first.
func TestHookAsksTheDaemonOnce(t *testing.T) {
	ws := newWorkspace(t, daemon)
	ws.write("a.txt", "a\n")
	ws.start()
	p := startRecordingProxy(t, filepath.Join(ws.state, "ckptd.sock"))
	via := []string{"CKPT_SOCKET=" + p.sock}
	tool := `,"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo b > b.txt"}`
	for _, step := range []struct {
		payload, path string
		write         func()
	}{
		{hookPayload("UserPromptSubmit", ws.root, `,"prompt":"go"`), "/v1/run/start", nil},
		{hookPayload("PreToolUse", ws.root, tool), "/v1/tool/start", func() { ws.write("b.txt", "b\n") }},
		{hookPayload("PostToolUse", ws.root, tool+`,"tool_response":{}`), "/v1/tool/end", nil},
		{hookPayload("Stop", ws.root, ""), "/v1/run/end", nil},
	} {
		if r := ws.hookVia(via, step.payload); r.code != 0 {
			t.Fatalf("hook through the proxy:\n%s", r)
		}
		if got := p.take(); len(got) != 1 || got[0] != step.path {
			t.Errorf("the hook asked the daemon %q, want only %s", got, step.path)
		}
		if step.write != nil {
			step.write()
		}
	}
	var rd struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	ws.ckptJSON(&rd, "diff", "--session", "s1", "--run", "turn-1")
	if len(rd.Files) != 1 || rd.Files[0].Path != "b.txt" {
		t.Errorf("the turn's diff: %+v, want b.txt", rd.Files)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "c.txt"), []byte("c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := ws.hookVia(via, strings.Replace(hookPayload("UserPromptSubmit", other, `,"prompt":"go"`), `"s1"`, `"s2"`, 1))
	if got := p.take(); len(got) < 2 || got[0] != "/v1/run/start" || got[1] != "/v1/health" {
		t.Errorf("a hook for a workspace not served asked %q, want /v1/run/start, then /v1/health\n%s", got, r)
	}
}

// TestHookDuringFirstImport: a hook for a workspace whose first import is
// running in the daemon is answered at once, while the import still runs:
// one line saying the call is not recorded, exit 1 (never 2, which would
// block the agent). After the import, the hooks are recorded.
func TestHookDuringFirstImport(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	for d := range 10 {
		for f := range 40 {
			ws.write(fmt.Sprintf("d%02d/f%02d.txt", d, f), "v0\n")
		}
	}
	// 400 files at 10 ms each: the walk alone takes four seconds.
	logPath := ws.startSlowImport("ckptd-hook-import.log")
	// No ckpt before the daemon's socket answers: it would import the
	// workspace itself, at full speed.
	sock := filepath.Join(ws.state, "ckptd.sock")
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ckptd's socket did not answer within 30s%s", logTail(logPath))
		}
		time.Sleep(10 * time.Millisecond)
	}
	var st statusJSON
	for deadline := time.Now().Add(10 * time.Second); ; {
		r := ws.ckptEnv([]string{"CKPT_LOCK_TIMEOUT=200ms"}, "status", "--json")
		if r.code == 0 && decodeOne(r.stdout, &st) == nil && st.Daemon.Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ckpt status was not answered by the daemon within 10s: %s%s", r, logTail(logPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st.Importing == nil {
		t.Fatal("the import ended before the hook ran: the test proves nothing; slow it down")
	}
	r := ws.hookVia(nil, hookPayload("UserPromptSubmit", ws.root, `,"prompt":"go"`))
	wantMsg := "is importing " + ws.root + " for the first time: this call is not recorded"
	if r.code != 1 || !strings.Contains(r.stderr, wantMsg) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
		t.Errorf("a hook during the first import: want exit 1 and one line %q\n%s", wantMsg, r)
	}
	st = statusJSON{}
	ws.ckptJSON(&st, "status")
	if st.Importing == nil {
		t.Errorf("the hook's answer came only after the import had ended: it waited for it")
	}
	for deadline := time.Now().Add(60 * time.Second); st.Importing != nil; {
		if time.Now().After(deadline) {
			t.Fatal("the import did not end within a minute")
		}
		time.Sleep(200 * time.Millisecond)
		st = statusJSON{} // an absent importing leaves a decoded one as it was
		ws.ckptJSON(&st, "status")
	}
	if r := ws.hookVia(nil, hookPayload("UserPromptSubmit", ws.root, `,"prompt":"go"`)); r.code != 0 {
		t.Errorf("a hook after the import:\n%s", r)
	}
	var after struct {
		LastRun *struct {
			SessionID string `json:"session_id"`
			RunID     string `json:"run_id"`
			Open      bool   `json:"open"`
		} `json:"last_run"`
	}
	ws.ckptJSON(&after, "status")
	if after.LastRun == nil || after.LastRun.SessionID != "s1" || after.LastRun.RunID != "turn-1" || !after.LastRun.Open {
		t.Errorf("after the import the hook's run start is not recorded: last_run %+v", after.LastRun)
	}
}
