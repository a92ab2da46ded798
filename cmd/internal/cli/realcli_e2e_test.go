package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// The real Codex and Gemini CLIs, driven against a local fake of their
// model API, with hooks installed by `ckpt integrate RUNTIME --user`.
// They are slow and need the CLIs: set CKPT_CODEX_CLI and CKPT_GEMINI_CLI
// to their paths (npm install @openai/codex @google/gemini-cli).

// fakeModel serves a model API: the first turn's prompt (it contains
// "first") gets one tool call, then an answer; any other prompt an
// answer. It keeps every request body.
type fakeModel struct {
	mu     sync.Mutex
	bodies []string
}

func (f *fakeModel) record(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(b))
	f.mu.Unlock()
	return string(b)
}

func (f *fakeModel) saw(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.bodies {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		io.WriteString(w, e+"\n\n")
	}
}

// codexAPI fakes the Responses API: the tool call is exec_command.
func (f *fakeModel) codexAPI(ws string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body := f.record(r)
		item := map[string]any{"type": "message", "role": "assistant", "id": "m1",
			"content": []any{map[string]any{"type": "output_text", "text": "Done."}}}
		if strings.Contains(body, "first") && !strings.Contains(body, "function_call_output") {
			args, _ := json.Marshal(map[string]string{"cmd": "sed -i s/foo/bar/ a.txt", "workdir": ws})
			item = map[string]any{"type": "function_call", "id": "fc1", "name": "exec_command", "arguments": string(args), "call_id": "call_sed1"}
		}
		ev := func(name string, v any) string {
			b, _ := json.Marshal(v)
			return "event: " + name + "\ndata: " + string(b)
		}
		sse(w,
			ev("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "r1"}}),
			ev("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item}),
			ev("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": "r1",
				"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}}))
	}
}

// geminiAPI fakes the Gemini API: the tool call is write_file.
func (f *fakeModel) geminiAPI(ws string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body := f.record(r)
		answer := func(parts ...any) map[string]any {
			return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
				"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
		}
		switch {
		case strings.Contains(r.URL.Path, "countTokens"):
			json.NewEncoder(w).Encode(map[string]any{"totalTokens": 1})
		case !strings.Contains(r.URL.Path, "streamGenerateContent"):
			json.NewEncoder(w).Encode(answer(map[string]any{"text": `{"next_speaker":"user","reasoning":"done"}`}))
		default:
			reply := answer(map[string]any{"text": "Done."})
			if geminiFirstTurn(body) {
				reply = answer(map[string]any{"functionCall": map[string]any{"name": "write_file",
					"args": map[string]any{"file_path": filepath.Join(ws, "new.txt"), "content": "created by the agent\n"}}})
			}
			b, _ := json.Marshal(reply)
			sse(w, "data: "+string(b))
		}
	}
}

type realCLI struct {
	runtime, envVar string
	// setup writes the CLI's own config in home and returns its env.
	setup func(t *testing.T, home, url string) []string
	// run is the command line for one prompt.
	run func(cli, prompt string) []string
	// api is the fake model API.
	api func(f *fakeModel, ws string) http.HandlerFunc
	// changed is the file the first turn's tool call changes, and its
	// content before.
	changed, before string
	// showsUndo: the CLI prints the turn's undo line (a systemMessage).
	showsUndo bool
}

var realCLIs = []realCLI{
	{
		runtime: "codex", envVar: "CKPT_CODEX_CLI",
		setup: func(t *testing.T, home, url string) []string {
			if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := fmt.Sprintf("model = \"gpt-5\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"FAKE_KEY\"\n", url+"/v1")
			writeFile(t, filepath.Join(home, ".codex"), "config.toml", cfg)
			return []string{"FAKE_KEY=x"}
		},
		run: func(cli, prompt string) []string {
			return []string{cli, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt}
		},
		api:     (*fakeModel).codexAPI,
		changed: "a.txt", before: "foo\nkeep\n",
	},
	{
		runtime: "gemini", envVar: "CKPT_GEMINI_CLI",
		setup: func(t *testing.T, home, url string) []string {
			if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(home, ".gemini"), "settings.json", `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`+"\n")
			return []string{"GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_TRUST_WORKSPACE=true"}
		},
		run: func(cli, prompt string) []string {
			return []string{cli, "--approval-mode", "yolo", "-p", prompt}
		},
		api:       (*fakeModel).geminiAPI,
		changed:   "new.txt",
		showsUndo: true,
	},
}

// TestRealCLIs: two turns of the real CLI with the person's edit between;
// the first turn's run holds exactly its tool call's change in a window,
// the second turn's prompt reaches the model with ckpt's note of the
// person's edit, and reverting the first turn undoes it and keeps the
// person's edit. Without a daemon and with ckptd watching.
func TestRealCLIs(t *testing.T) {
	bin := hookBuildCkpt(t)
	for _, c := range realCLIs {
		t.Run(c.runtime, func(t *testing.T) {
			cli := os.Getenv(c.envVar)
			if cli == "" {
				t.Skipf("set %s to the %s CLI to run this", c.envVar, c.runtime)
			}
			t.Run("embedded", func(t *testing.T) { realCLIScenario(t, bin, "", cli, c) })
			t.Run("daemon", func(t *testing.T) {
				ckptd, err := hookBuild(t, "ckptd")
				if err != nil {
					t.Skipf("no daemon to test with: %v", err)
				}
				realCLIScenario(t, bin, ckptd, cli, c)
			})
		})
	}
}

func realCLIScenario(t *testing.T, bin, ckptd, cli string, c realCLI) {
	tmp := t.TempDir()
	ws := replayWorkspace(t, tmp)
	home := filepath.Join(tmp, "home")
	fake := &fakeModel{}
	srv := httptest.NewServer(c.api(fake, ws))
	defer srv.Close()
	env := append(hookEnv(tmp), "HOME="+home)
	env = append(env, c.setup(t, home, srv.URL)...)
	if ckptd != "" {
		hookStartDaemon(t, ckptd, bin, env, ws)
	}
	if r := hookExec(t, bin, env, ws, nil, "integrate", c.runtime, "--user"); r.code != 0 {
		t.Fatalf("ckpt integrate: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	prompt := func(text string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		args := c.run(cli, text)
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", c.runtime, text, err, out)
		}
		t.Logf("%s %q:\n%s", c.runtime, text, out)
		return string(out)
	}
	out := prompt("first: change the files")
	r := hookExec(t, bin, env, tmp, nil, "-C", ws, "log", "--json")
	var log api.Log
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatalf("ckpt log: %v: %s", err, r.stdout)
	}
	var windows []api.Checkpoint
	for _, cp := range log.Checkpoints {
		if cp.Reason == "pre_write" {
			windows = append(windows, cp)
		}
	}
	if len(windows) != 1 || windows[0].RunID != "turn-1" {
		t.Fatalf("pre_write checkpoints %+v, want one in turn-1", windows)
	}
	session := windows[0].SessionID
	if undo := "ckpt revert --session " + session + " --run turn-1"; c.showsUndo && !strings.Contains(out, undo) {
		t.Errorf("the first turn's output does not show %q", undo)
	}
	r = hookExec(t, bin, env, tmp, nil, "-C", ws, "diff", "--session", session, "--run", "turn-1", "--json")
	var d api.RunDiff
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil || len(d.Files) != 1 || d.Files[0].Path != c.changed {
		t.Fatalf("turn-1 diff: exit %d %s %s, want exactly %s", r.code, r.stdout, r.stderr, c.changed)
	}

	writeFile(t, ws, "b.txt", "hello, edited by the person\n")
	prompt("second: anything new?")
	if !fake.saw(`b.txt`) || !fake.saw(`changed outside your runs`) {
		t.Errorf("the second turn's requests do not carry ckpt's note of the person's edit to b.txt")
	}

	r = hookExec(t, bin, env, tmp, nil, "-C", ws, "revert", "--session", session, "--run", "turn-1", "--yes")
	if r.code != 0 {
		t.Fatalf("ckpt revert: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(filepath.Join(ws, c.changed))
	if c.before == "" && !os.IsNotExist(err) || c.before != "" && string(got) != c.before {
		t.Errorf("after revert %s = %q (%v), want %q", c.changed, got, err, c.before)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "hello, edited by the person\n" {
		t.Errorf("after revert b.txt = %q, want the person's edit", b)
	}
}

// geminiFirstTurn reports whether a request's last content is the
// person's first prompt (not a tool's result).
func geminiFirstTurn(body string) bool {
	var req struct {
		Contents []struct {
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal([]byte(body), &req) != nil || len(req.Contents) == 0 {
		return false
	}
	last := req.Contents[len(req.Contents)-1]
	for _, p := range last.Parts {
		if _, ok := p["functionResponse"]; ok {
			return false
		}
		if text, _ := p["text"].(string); strings.Contains(text, "first") {
			return true
		}
	}
	return false
}
