package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession runs the real `ckpt mcp` in the workspace, as a runtime
// launches it, and connects the SDK's client to it over stdio.
func mcpSession(ws *workspace) *mcp.ClientSession {
	ws.t.Helper()
	cmd := exec.Command(ckptBin, "mcp")
	cmd.Dir, cmd.Env = ws.root, ws.env
	if ws.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: ws.cred}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		ws.t.Fatalf("ckpt mcp: connect: %v", err)
	}
	ws.t.Cleanup(func() { cs.Close() })
	return cs
}

// mcpCall calls a tool, fails unless it answers without a tool error
// (wantErr: with one), and decodes its structured content into out.
func mcpCall(t *testing.T, cs *mcp.ClientSession, wantErr bool, name string, args map[string]any, out any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("mcp %s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError != wantErr {
		t.Fatalf("mcp %s %v: is_error %v, want %v: %s", name, args, res.IsError, wantErr, text.String())
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("mcp %s: %v in %s", name, err, b)
		}
	}
	return text.String()
}

// TestMCPServer drives the real `ckpt mcp` over stdio with the SDK's
// client: the agent lists its tools, sees the person's drift, its runs'
// changes and a path's history, reverts its first run (conflicts left
// alone), and the person undoes that revert with ckpt undo. The embedded
// server holds the store only during a call, so ckpt commands run while
// it is connected.
func TestMCPServer(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		_, before, _ := twoRunsAndThePerson(ws)
		ws.write("p.txt", "p again by the person\n")
		after := ws.tree()
		cs := mcpSession(ws)

		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if got := strings.Join(names, " "); got != "drift history restore revert run_changes undo" {
			t.Fatalf("tools: %s", got)
		}

		var d struct {
			Changes []change `json:"changes"`
			LastRun struct {
				SessionID string `json:"session_id"`
				RunID     string `json:"run_id"`
			} `json:"last_run"`
		}
		text := mcpCall(t, cs, false, "drift", nil, &d)
		assertChanges(t, "drift", d.Changes, want("modified p.txt"))
		if d.LastRun.SessionID != "s" || d.LastRun.RunID != "r2" || !strings.Contains(text, `"p.txt"`) {
			t.Fatalf("drift: last run %+v, text %s", d.LastRun, text)
		}

		var rc struct {
			RunID string   `json:"run_id"`
			Files []change `json:"files"`
		}
		mcpCall(t, cs, false, "run_changes", nil, &rc)
		if assertChanges(t, "run_changes (last run)", rc.Files, want("modified b.txt", "modified d.txt")); rc.RunID != "r2" {
			t.Fatalf("run_changes defaulted to run %q, want r2", rc.RunID)
		}
		mcpCall(t, cs, false, "run_changes", map[string]any{"session_id": "s", "run_id": "r1", "patch": true}, &rc)
		assertChanges(t, "run_changes r1", rc.Files, want("modified a.txt", "modified b.txt", "modified c.txt", "added new.txt", "deleted gone.txt"))

		var h struct {
			Versions []struct {
				By    string `json:"by"`
				RunID string `json:"run_id"`
			} `json:"versions"`
		}
		mcpCall(t, cs, false, "history", map[string]any{"path": "a.txt"}, &h)
		if len(h.Versions) < 2 || h.Versions[0].By != "run" || h.Versions[0].RunID != "r1" {
			t.Fatalf("history a.txt: %+v", h.Versions)
		}
		mcpCall(t, cs, true, "history", map[string]any{"path": "../outside"}, nil)
		mcpCall(t, cs, true, "revert", map[string]any{"session_id": "s", "run_id": "nope"}, nil)
		assertTree(t, "after bad calls", after, ws.tree())

		var r revertJSON
		mcpCall(t, cs, false, "revert", map[string]any{"session_id": "s", "run_id": "r1"}, &r)
		assertChanges(t, "mcp revert: restored", r.Restored, want("modified a.txt", "deleted new.txt", "added gone.txt"))
		assertConflicts(t, "mcp revert", r, "modified b.txt run:s/r2/", "modified c.txt person://")
		wantTree := maps.Clone(after)
		wantTree["a.txt"], wantTree["gone.txt"] = before["a.txt"], before["gone.txt"]
		delete(wantTree, "new.txt")
		assertTree(t, "after the agent's revert of r1", wantTree, ws.tree())

		ws.ckptOK("undo", "--yes")
		assertTree(t, "after ckpt undo of the agent's revert", after, ws.tree())

		// The agent's restore of one named path, and its undo.
		mcpCall(t, cs, false, "restore", map[string]any{"checkpoint_id": r.CheckpointID, "paths": []string{"a.txt"}}, nil)
		wantTree = maps.Clone(after)
		wantTree["a.txt"] = before["a.txt"]
		assertTree(t, "after the agent's restore of a.txt", wantTree, ws.tree())
		mcpCall(t, cs, false, "undo", nil, nil)
		assertTree(t, "after the agent's undo", after, ws.tree())
	})
}

// TestMCPMalformedStdin: what is not JSON-RPC on ckpt mcp's stdin is bad
// input: one line on stderr, nothing on stdout, exit 2, nothing changed.
func TestMCPMalformedStdin(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		before := ws.tree()
		for _, in := range []string{"garbage\n", `{"jsonrpc":"2.0","id":1,"method":"initialize"`} {
			cmd := exec.Command(ckptBin, "mcp")
			cmd.Dir, cmd.Env, cmd.Stdin = ws.root, ws.env, strings.NewReader(in)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "ckpt: mcp: ") {
				t.Errorf("ckpt mcp < %q: exit %d (%v), stdout %q, stderr %q", in, code, err, stdout.String(), stderr.String())
			}
		}
		assertTree(t, "after malformed input", before, ws.tree())
	})
}
