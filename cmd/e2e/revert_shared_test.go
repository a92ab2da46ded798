package e2e

import (
	"strings"
	"testing"
)

// revertSharedJSON is a revert's restored paths with their shared_with.
type revertSharedJSON struct {
	Restored []sharedChange `json:"restored"`
}

// historySharedJSON is `ckpt history --json` with each version's stamp
// and shared_with.
type historySharedJSON struct {
	Versions []struct {
		By         string  `json:"by"`
		SessionID  string  `json:"session_id"`
		RunID      string  `json:"run_id"`
		ToolCallID string  `json:"tool_call_id"`
		SharedWith []party `json:"shared_with"`
	} `json:"versions"`
}

// TestRevertSharedChange: a change made while two runs were open is each
// run's (both run ends list it, shared with the other), so reverting
// either run reverts it, marked shared_with the other; the same for two
// tool calls open at once and --call; and history names the stamp and the
// others as shared_with, so every party it names reverts that version.
func TestRevertSharedChange(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("keep.txt", "k\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "A", "--run", "1")
		ws.ckptOK("run", "start", "--session", "B", "--run", "2")
		ws.write("sh.txt", "sh\n")
		ws.ckptOK("run", "end", "--session", "A", "--run", "1")
		ws.ckptOK("run", "end", "--session", "B", "--run", "2")

		var h historySharedJSON
		ws.ckptJSON(&h, "history", "sh.txt")
		if len(h.Versions) != 1 || h.Versions[0].By != "run" || len(h.Versions[0].SharedWith) != 1 {
			t.Fatalf("history sh.txt: %+v; want one version by a run, shared with the other", h.Versions)
		}
		stamp := party{h.Versions[0].SessionID, h.Versions[0].RunID, ""}.String()
		other := h.Versions[0].SharedWith[0].String()
		if got := stamp + "," + other; got != "A/1,B/2" && got != "B/2,A/1" {
			t.Fatalf("history sh.txt: by %s shared with %s; want A/1 and B/2", stamp, other)
		}
		for _, run := range [][2]string{{"A", "1"}, {"B", "2"}} {
			name, with := run[0]+"/"+run[1], "B/2"
			if run[0] == "B" {
				with = "A/1"
			}
			var dry revertSharedJSON
			ws.ckptJSON(&dry, "revert", "--session", run[0], "--run", run[1], "--dry-run")
			assertShared(t, "revert --dry-run of "+name, dry.Restored, "deleted sh.txt shared with "+with)
			text := ws.ckptOK("revert", "--session", run[0], "--run", run[1], "--dry-run")
			if !strings.Contains(text, "would revert 1 path") || !strings.Contains(text, "sh.txt  (shared with "+with+")") {
				t.Errorf("revert --dry-run of %s (text): want sh.txt, shared with %s:\n%s", name, with, text)
			}
		}
		var r revertSharedJSON
		ws.ckptJSON(&r, "revert", "--session", "A", "--run", "1", "--yes")
		if ws.exists("sh.txt") {
			t.Errorf("revert of A/1: sh.txt is still there")
		}

		// Two tool calls open at once: --call reverts the change for either.
		ws.ckptOK("tool", "start", "--session", "A", "--run", "3", "--call", "c1")
		ws.ckptOK("tool", "start", "--session", "B", "--run", "4", "--call", "c2")
		ws.write("w.txt", "w\n")
		ws.ckptOK("tool", "end", "--session", "A", "--run", "3", "--call", "c1")
		ws.ckptOK("tool", "end", "--session", "B", "--run", "4", "--call", "c2")
		var hw historySharedJSON
		ws.ckptJSON(&hw, "history", "w.txt")
		if len(hw.Versions) != 1 || hw.Versions[0].By != "tool" || len(hw.Versions[0].SharedWith) == 0 {
			t.Fatalf("history w.txt: %+v; want one version by a tool call, shared with the other", hw.Versions)
		}
		for _, c := range [][3]string{{"A", "3", "c1"}, {"B", "4", "c2"}} {
			var dry revertSharedJSON
			ws.ckptJSON(&dry, "revert", "--session", c[0], "--run", c[1], "--call", c[2], "--dry-run")
			if len(dry.Restored) != 1 || dry.Restored[0].Path != "w.txt" || len(dry.Restored[0].SharedWith) == 0 {
				t.Errorf("revert --call %s --dry-run: restored %+v; want w.txt, shared with the other call", c[2], dry.Restored)
			}
			for _, p := range dry.Restored[0:min(1, len(dry.Restored))] {
				for _, q := range p.SharedWith {
					if q.SessionID == c[0] {
						t.Errorf("revert --call %s: shared_with %s names its own run", c[2], q)
					}
				}
			}
		}
	})
}
