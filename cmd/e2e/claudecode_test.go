package e2e

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

const claudeUnformatted = "package main\nfunc main(){\nx:=1\n_ = x}\n"

// TestClaudeCodeRealClient runs two turns of the real Claude Code CLI, with
// the hooks a person installs, against a scripted API: turn 1 runs a Bash
// call (sed -i, rm, gofmt -w), Write, Read then Edit, and a background
// subagent that writes after the main agent's Stop; the person edits a
// file; turn 2 writes another. Each turn is one run holding exactly its
// own changes (the subagent's included), the person's edit is drift told
// to the agent at the next prompt, each turn's end shows the undo line,
// and reverting turn 1, undoing that, restoring the baseline and undoing
// that leave the tree byte for byte as expected.
func TestClaudeCodeRealClient(t *testing.T) {
	claudeBinary(t)
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "name=old\n")
		ws.write("rm.txt", "remove me\n")
		ws.write("fmt.go", claudeUnformatted)
		ws.write("e.txt", "hello world\n")
		ws.write("keep.txt", "the person's\n")
		bash := func(id, command string) apiToolUse {
			return apiToolUse{id: id, name: "Bash", input: map[string]any{"command": command, "description": id}}
		}
		c := newClaudeSession(t, ws, map[string][]apiReply{
			"t1": {
				{tools: []apiToolUse{bash("toolu_sh", "sed -i s/old/new/ a.txt && rm rm.txt && "+gofmtBin+" -w fmt.go")}},
				{tools: []apiToolUse{{id: "toolu_write", name: "Write", input: map[string]any{"file_path": ws.path("new.txt"), "content": "written\n"}}}},
				{tools: []apiToolUse{{id: "toolu_read", name: "Read", input: map[string]any{"file_path": ws.path("e.txt")}}}},
				{tools: []apiToolUse{{id: "toolu_edit", name: "Edit", input: map[string]any{"file_path": ws.path("e.txt"), "old_string": "world", "new_string": "there"}}}},
				{tools: []apiToolUse{{id: "toolu_agent", name: "Agent", input: map[string]any{"description": "bg", "prompt": "[[script:sub]] write sub.txt", "subagent_type": "general-purpose", "run_in_background": true}}}},
				{text: "turn 1 done"},
			},
			"sub": {
				{tools: []apiToolUse{bash("toolu_sub", "sleep 1; echo by the subagent > sub.txt")}},
				{text: "sub done"},
			},
			"t2": {
				{tools: []apiToolUse{bash("toolu_t2", "echo second > t2.txt")}},
				{text: "turn 2 done"},
			},
		}, false)
		ws.start()
		before := ws.tree()

		out := c.turn("[[script:t1]] edit the files")
		assertUndoShown(t, out, c.id, "turn-1")
		var r1 runDiffJSON
		ws.ckptJSON(&r1, "diff", "--session", c.id, "--run", "turn-1")
		assertChanges(t, "turn-1", r1.Files, want("modified a.txt", "deleted rm.txt", "modified fmt.go", "added new.txt", "modified e.txt", "added sub.txt"))
		if st := ws.status(); st.Drifted {
			t.Errorf("after turn 1: status drifted %v, want nothing outside runs (the background subagent's sub.txt is turn-1's)", kinds(st.Changes))
		}

		ws.write("keep.txt", "edited by the person\n")
		c.turn("[[script:t2]] one more")
		turn := "turn-3" // turn-2 is the agent's answer to the subagent's task notification
		var r3 runDiffJSON
		ws.ckptJSON(&r3, "diff", "--session", c.id, "--run", turn)
		assertChanges(t, turn, r3.Files, want("added t2.txt"))
		if p := firstPrompt(c.api, "t2"); !strings.Contains(p, `modified: \"keep.txt\"`) {
			t.Errorf("turn 2's prompt does not tell the agent of the person's keep.txt:\n%s", p)
		}
		after := ws.tree()

		var rv revertJSON
		ws.ckptJSON(&rv, "revert", "--session", c.id, "--run", "turn-1", "--yes")
		wantTree := maps.Clone(after)
		for _, p := range []string{"a.txt", "rm.txt", "fmt.go", "e.txt"} {
			wantTree[p] = before[p]
		}
		delete(wantTree, "new.txt")
		delete(wantTree, "sub.txt")
		assertTree(t, "after revert of turn-1", wantTree, ws.tree())
		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo of the revert", after, ws.tree())

		var rs restoreJSON
		ws.ckptJSON(&rs, "restore", r1.PrevCheckpointID, "--exact", "--yes")
		assertTree(t, "after restore of turn-1's baseline", before, ws.tree())
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo of the restore", after, ws.tree())
	})
}

// assertUndoShown checks that the CLI showed the person the undo line of
// the run (a Stop hook's systemMessage).
func assertUndoShown(t *testing.T, out []streamEvent, session, run string) {
	t.Helper()
	line := "ckpt revert --session " + session + " --run " + run
	for _, ev := range out {
		b, _ := json.Marshal(ev)
		if strings.Contains(string(b), line) {
			return
		}
	}
	var all []string
	for _, ev := range out {
		if ev["type"] == "system" && ev["subtype"] != "init" {
			b, _ := json.Marshal(ev)
			all = append(all, string(b))
		}
	}
	t.Errorf("the CLI's output does not show %q; its system events:\n%s", line, strings.Join(all, "\n"))
}

// firstPrompt is the marked user message of script's first request.
func firstPrompt(api *fakeAPI, script string) string {
	for _, r := range api.log() {
		if r.Script == script && r.Step == 0 {
			return r.Prompt
		}
	}
	return ""
}
