package e2e

import (
	"maps"
	"slices"
	"testing"
)

// TestClaudeCodeMCPRevert: with `ckpt integrate claude-code` run as a
// person does, the real Claude Code CLI (-p, no --mcp-config) starts `ckpt mcp` from the
// workspace's .mcp.json and offers its tools; in turn 2 the scripted model
// calls mcp__ckpt__drift and mcp__ckpt__revert on turn 1: turn 1's changes
// are undone byte for byte, the person's edit between the turns stays, and
// ckpt undo brings turn 1's changes back.
func TestClaudeCodeMCPRevert(t *testing.T) {
	claudeBinary(t)
	bothModes(t, func(t *testing.T, m mode) {
		// Tool search off: the MCP tools are offered with the others, so the
		// scripted model can call one directly.
		ws := newWorkspace(t, m, "ENABLE_TOOL_SEARCH=false")
		ws.write("a.txt", "name=old\n")
		ws.write("keep.txt", "the person's\n")
		bash := func(id, command string) apiToolUse {
			return apiToolUse{id: id, name: "Bash", input: map[string]any{"command": command, "description": id}}
		}
		c := newClaudeSession(t, ws, nil, false)
		c.api.script = map[string][]apiReply{
			"t1": {
				{tools: []apiToolUse{bash("toolu_sh", "sed -i s/old/new/ a.txt && echo made > new.txt")}},
				{text: "turn 1 done"},
			},
			"t2": {
				{tools: []apiToolUse{{id: "toolu_drift", name: "mcp__ckpt__drift", input: map[string]any{}}}},
				{tools: []apiToolUse{{id: "toolu_revert", name: "mcp__ckpt__revert", input: map[string]any{"session_id": c.id, "run_id": "turn-1"}}}},
				{text: "turn 1 reverted"},
			},
		}
		ws.ckptOK("integrate", "claude-code")
		ws.start()
		before := ws.tree()

		c.turn("[[script:t1]] edit the files")
		ws.write("keep.txt", "edited by the person\n")
		afterT1 := ws.tree()
		c.turn("[[script:t2]] undo your last turn")

		for _, r := range c.api.log() {
			if r.Script == "t2" && r.Step == 0 && !slices.Contains(r.Tools, "mcp__ckpt__revert") {
				t.Fatalf("Claude Code did not offer ckpt's MCP tools in turn 2: %v", r.Tools)
			}
		}
		wantTree := maps.Clone(afterT1)
		wantTree["a.txt"] = before["a.txt"]
		delete(wantTree, "new.txt")
		assertTree(t, "after the agent's mcp__ckpt__revert of turn-1", wantTree, ws.tree())

		ws.ckptOK("undo", "--yes")
		assertTree(t, "after ckpt undo of the agent's revert", afterT1, ws.tree())
	})
}
