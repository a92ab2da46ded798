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

// TestClaudeCodeCaptureInterrupt records an interrupted tool call: the
// SDK's interrupt control request, which is what Esc does in the terminal.
func TestClaudeCodeCaptureInterrupt(t *testing.T) {
	out := os.Getenv("CKPT_CLAUDE_CAPTURE")
	if out == "" {
		t.Skip("set CKPT_CLAUDE_CAPTURE=DIR to record the real CLI's hook payloads")
	}
	ws := newWorkspace(t, embedded)
	ws.write("a.txt", "name=old\n")
	ws.start()
	c := newClaudeSession(t, ws, map[string][]apiReply{
		"t1": {
			{tools: []apiToolUse{{id: "toolu_slow", name: "Bash", input: map[string]any{"command": "echo agent > x.txt; sleep 30", "description": "slow"}}}},
			{text: "never"},
		},
	}, true)
	p := c.startInteractive()
	p.send(`{"type":"user","message":{"role":"user","content":"[[script:t1]] go"}}`)
	p.waitFile(filepath.Join(ws.root, "x.txt"))
	p.send(`{"type":"control_request","request_id":"int-1","request":{"subtype":"interrupt"}}`)
	p.waitResult()
	p.close()
	names, payloads := c.recordedPayloads()
	for i, n := range names {
		t.Logf("%s: %v", n, payloads[i])
		data, _ := os.ReadFile(filepath.Join(c.records, n))
		os.WriteFile(filepath.Join(out, n), data, 0o644)
	}
	tr, _ := os.ReadFile(payloads[0]["transcript_path"].(string))
	os.WriteFile(filepath.Join(out, "transcript.jsonl"), tr, 0o644)
	t.Logf("transcript:\n%s", tr)
}
