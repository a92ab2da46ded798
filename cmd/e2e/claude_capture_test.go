package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClaudeCodeCapture saves the hook payloads the real CLI sends for a
// scripted session into $CKPT_CLAUDE_CAPTURE (the fixtures under
// testdata/claude-code came from it).
func TestClaudeCodeCapture(t *testing.T) {
	out := os.Getenv("CKPT_CLAUDE_CAPTURE")
	if out == "" {
		t.Skip("set CKPT_CLAUDE_CAPTURE=DIR to record the real CLI's hook payloads")
	}
	ws := newWorkspace(t, embedded)
	ws.write("a.txt", "name=old\n")
	ws.write("b.txt", "one\ntwo\n")
	ws.start()
	c := newClaudeSession(t, ws, map[string][]apiReply{
		"t1": {
			{text: "sed", tools: []apiToolUse{{id: "toolu_sed", name: "Bash", input: map[string]any{"command": "sed -i s/old/new/ a.txt", "description": "sed"}}}},
			{tools: []apiToolUse{{id: "toolu_write", name: "Write", input: map[string]any{"file_path": ws.path("w.txt"), "content": "written\n"}}}},
			{tools: []apiToolUse{{id: "toolu_agent", name: "Agent", input: map[string]any{"description": "bg", "prompt": "[[script:sub]] write s.txt", "subagent_type": "general-purpose", "run_in_background": true}}}},
			{text: "main done"},
		},
		"sub": {
			{tools: []apiToolUse{{id: "toolu_subsleep", name: "Bash", input: map[string]any{"command": "sleep 2; echo sub > s.txt", "description": "sub"}}}},
			{text: "sub done"},
		},
	}, true)
	evs := c.turn("[[script:t1]] go")
	for _, e := range evs {
		t.Logf("stream: %v %v", e["type"], e["subtype"])
	}
	names, payloads := c.recordedPayloads()
	for i, n := range names {
		t.Logf("%s: %v", n, payloads[i])
		data, _ := os.ReadFile(filepath.Join(c.records, n))
		os.WriteFile(filepath.Join(out, n), data, 0o644)
	}
	for _, r := range c.api.log() {
		t.Logf("api: %+v", r)
	}
}
