package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ckptdev/ckpt/integration/api"
)

// runtimeReplay is one runtime's documented turn, replayed from its
// fixtures (integration/hooks/RUNTIME/testdata) through the real binary.
type runtimeReplay struct {
	runtime, session string
	// calls are the tool windows the replay must record: call id (or a
	// prefix, for a runtime that sends none), command and run.
	calls [][3]string
	// stop ends the first turn; the person edits b.txt before prompt,
	// the second turn's; driftAt's answer tells the agent of that edit.
	stop, prompt, driftAt string
	// undo: the runtime shows the undo line at the first turn's end.
	undo bool
}

var runtimeReplays = []runtimeReplay{
	{"codex", "019a4c3e-7b2d-7f10-9c55-3f2e1d0a8b61",
		[][3]string{{"call_5rK2mVqXc1bN8sTj", "sed -i 's/foo/bar/' a.txt", "turn-1"}, {"call_9hW3pLzA0dQe4uYf", "apply_patch new.txt", "turn-1"}},
		"6-stop.json", "7-user-prompt-submit.json", "7-user-prompt-submit.json", true},
	{"gemini", "b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
		[][3]string{{"call-", "sed -i 's/foo/bar/' a.txt", "turn-1"}, {"call-", "write_file new.txt", "turn-1"}},
		"8-after-agent.json", "9-before-agent.json", "9-before-agent.json", true},
	{"cursor", "4f8e2a1c-6b3d-4e9f-a2c7-d1b0e5f3a6c8",
		[][3]string{{"tool_02Shell", "sed -i 's/foo/bar/' a.txt", "turn-1"}, {"tool_03Write", "Write $CWD/new.txt", "turn-1"}, {"tool_04Shell", "go test ./...", "turn-2"}},
		"8-stop.json", "9-before-submit-prompt.json", "11-post-tool-use-shell.json", false},
}

// TestHookRuntimesReplay replays each runtime's documented event order:
// a turn with a shell call (sed) and a file write, a read that gets no
// window, the person's edit, the next prompt; then reverts the turn.
// Without a daemon and with ckptd watching.
func TestHookRuntimesReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	bin := hookBuildCkpt(t)
	for _, rc := range runtimeReplays {
		t.Run(rc.runtime, func(t *testing.T) {
			t.Run("embedded", func(t *testing.T) { replayRuntime(t, bin, "", rc) })
			t.Run("daemon", func(t *testing.T) {
				ckptd, err := hookBuild(t, "ckptd")
				if err != nil {
					t.Skipf("no daemon to test with: %v", err)
				}
				replayRuntime(t, bin, ckptd, rc)
			})
		})
	}
}

func replayWorkspace(t *testing.T, tmp string) string {
	t.Helper()
	ws := filepath.Join(tmp, "ws")
	for name, content := range map[string]string{"a.txt": "foo\nkeep\n", "b.txt": "hello\n"} {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// fixtures are a runtime's payloads in their order, $CWD and $TRANSCRIPT
// filled in.
func fixtures(t *testing.T, runtime, ws, transcript string) (names []string, payloads [][]byte) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "integration", "hooks", runtime, "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s: %v", dir, err)
	}
	num := func(f string) int {
		n, _ := strconv.Atoi(strings.SplitN(filepath.Base(f), "-", 2)[0])
		return n
	}
	sort.Slice(files, func(i, j int) bool { return num(files[i]) < num(files[j]) })
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(strings.ReplaceAll(string(data), "$CWD", ws), "$TRANSCRIPT", transcript)
		names = append(names, filepath.Base(f))
		payloads = append(payloads, []byte(s))
	}
	return names, payloads
}

func replayRuntime(t *testing.T, bin, ckptd string, rc runtimeReplay) {
	tmp := t.TempDir()
	ws := replayWorkspace(t, tmp)
	env := hookEnv(tmp)
	if ckptd != "" {
		hookStartDaemon(t, ckptd, bin, env, ws)
	}
	names, payloads := fixtures(t, rc.runtime, ws, filepath.Join(tmp, "transcript.jsonl"))
	outputs := map[string]string{}
	for i, name := range names {
		if name == rc.prompt {
			// The person edits b.txt between the turns.
			if err := os.WriteFile(filepath.Join(ws, "b.txt"), []byte("hello, edited by the person\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := hookExec(t, bin, env, tmp, payloads[i], "hook", rc.runtime)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", name, r.code, r.stdout, r.stderr)
		}
		outputs[name] = r.stdout
		// The tool runs between its before and after events.
		switch {
		case strings.Contains(name, "pre-tool-use-bash"), strings.Contains(name, "before-tool-shell"), strings.Contains(name, "pre-tool-use-shell"):
			writeFile(t, ws, "a.txt", "bar\nkeep\n")
		case strings.Contains(name, "pre-tool-use-apply-patch"), strings.Contains(name, "before-tool-write"), strings.Contains(name, "pre-tool-use-write"):
			writeFile(t, ws, "new.txt", "created by the agent\n")
		}
	}
	checkReplayOutputs(t, rc, names, outputs)

	// The turn's diff is exactly the sed'ed and the new file.
	r := hookExec(t, bin, env, tmp, nil, "-C", ws, "diff", "--session", rc.session, "--run", "turn-1", "--json")
	var d api.RunDiff
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil {
		t.Fatalf("ckpt diff: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	got := map[string]string{}
	for _, f := range d.Files {
		got[f.Path] = f.Kind
	}
	if len(got) != 2 || got["a.txt"] != "modified" || got["new.txt"] != "added" {
		t.Errorf("turn-1 diff %v, want a.txt modified and new.txt added", got)
	}
	checkReplayWindows(t, bin, env, tmp, ws, rc)

	// Undoing the turn takes back the agent's changes and keeps the person's.
	r = hookExec(t, bin, env, tmp, nil, "-C", ws, "revert", "--session", rc.session, "--run", "turn-1", "--yes")
	if r.code != 0 {
		t.Fatalf("ckpt revert: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	for name, want := range map[string]string{"a.txt": "foo\nkeep\n", "b.txt": "hello, edited by the person\n", "new.txt": ""} {
		data, err := os.ReadFile(filepath.Join(ws, name))
		if want == "" {
			if !os.IsNotExist(err) {
				t.Errorf("after revert %s exists (%q), want it gone", name, data)
			}
			continue
		}
		if string(data) != want {
			t.Errorf("after revert %s = %q, want %q", name, data, want)
		}
	}
}

func writeFile(t *testing.T, ws, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkReplayOutputs: the undo line at the turn's end, the person's edit
// told at the next prompt, where the runtime takes them; nothing else.
func checkReplayOutputs(t *testing.T, rc runtimeReplay, names []string, outputs map[string]string) {
	t.Helper()
	for _, name := range names {
		out := outputs[name]
		switch name {
		case rc.stop:
			var o struct {
				SystemMessage string `json:"systemMessage"`
			}
			want := "ckpt revert --session " + rc.session + " --run turn-1"
			if !rc.undo {
				if out != "" {
					t.Errorf("%s: stdout %q, want nothing", name, out)
				}
			} else if json.Unmarshal([]byte(out), &o) != nil || !strings.Contains(o.SystemMessage, want) {
				t.Errorf("%s: stdout %q, want a systemMessage with %q", name, out, want)
			}
		case rc.driftAt:
			var o struct {
				HookSpecificOutput struct {
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
				AdditionalContext string `json:"additional_context"`
			}
			text := ""
			if json.Unmarshal([]byte(out), &o) == nil {
				text = o.HookSpecificOutput.AdditionalContext + o.AdditionalContext
			}
			if !strings.Contains(text, "b.txt") || strings.Contains(text, "a.txt") {
				t.Errorf("%s: stdout %q, want added context naming b.txt only", name, out)
			}
		default:
			if out != "" {
				t.Errorf("%s: stdout %q, want nothing", name, out)
			}
		}
	}
}

// checkReplayWindows: one pre_write checkpoint per writing call, with its
// id and command; none for the read.
func checkReplayWindows(t *testing.T, bin string, env []string, tmp, ws string, rc runtimeReplay) {
	t.Helper()
	r := hookExec(t, bin, env, tmp, nil, "-C", ws, "log", "--json")
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
	if len(windows) != len(rc.calls) {
		t.Fatalf("pre_write checkpoints %+v, want %d", windows, len(rc.calls))
	}
	sort.SliceStable(windows, func(i, j int) bool { return windows[i].CreatedAt.Before(windows[j].CreatedAt) })
	for i, want := range rc.calls {
		cmd := strings.ReplaceAll(want[1], "$CWD", ws)
		w := windows[i]
		if !strings.HasPrefix(w.ToolCallID, want[0]) || w.Message != cmd || w.RunID != want[2] || w.SessionID != rc.session {
			t.Errorf("window %d: call %q command %q run %q session %q, want call %s… command %q in %s", i, w.ToolCallID, w.Message, w.RunID, w.SessionID, want[0], cmd, want[2])
		}
	}
	if windows[0].ToolCallID == windows[1].ToolCallID {
		t.Errorf("both windows have call id %q", windows[0].ToolCallID)
	}
}

// TestHookRuntimesBadInput: bad input is one line on stderr and exit 1
// (2 would block the agent), stdout empty; an event ckpt does not act on
// exits 0 without opening a store.
func TestHookRuntimesBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	bin := hookBuildCkpt(t)
	tmp := t.TempDir()
	env := hookEnv(tmp)
	own := map[string][]string{
		"codex":  {`{"hook_event_name":"UserPromptSubmit"}`, `{"hook_event_name":"PreToolUse","session_id":"s"}`, `{"hook_event_name":"Stop","session_id":"a\u0000b"}`},
		"gemini": {`{"hook_event_name":"BeforeAgent"}`, `{"hook_event_name":"BeforeTool","session_id":"s"}`, `{"hook_event_name":"AfterAgent","session_id":""}`},
		"cursor": {`{"hook_event_name":"beforeSubmitPrompt"}`, `{"hook_event_name":"preToolUse","conversation_id":"s"}`, `{"hook_event_name":"stop","conversation_id":7}`},
	}
	for _, runtime := range []string{"codex", "gemini", "cursor"} {
		for _, in := range append([]string{`{bad`, `[]`, `null`, `{}`, `{"hook_event_name":7}`}, own[runtime]...) {
			r := hookExec(t, bin, env, tmp, []byte(in), "hook", runtime)
			if r.code != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "ckpt: hook "+runtime+": ") {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 1 and one line", runtime, in, r.code, r.stdout, r.stderr)
			}
		}
		if r := hookExec(t, bin, env, tmp, nil, "hook", runtime, "extra"); r.code != 1 {
			t.Errorf("%s with an argument: exit %d, want 1", runtime, r.code)
		}
		if r := hookExec(t, bin, env, tmp, nil, "hook", runtime, "--bogus"); r.code != 1 {
			t.Errorf("%s with an unknown flag: exit %d, want 1", runtime, r.code)
		}
		r := hookExec(t, bin, env, tmp, []byte(`{"hook_event_name":"Notification","session_id":"s","conversation_id":"s"}`), "hook", runtime)
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("%s ignored event: exit %d, %q %q", runtime, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "state")); !os.IsNotExist(err) {
		t.Errorf("bad input created the state directory: %v", err)
	}
}
