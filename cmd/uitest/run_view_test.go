package uitest

import (
	"fmt"
	"strings"
	"testing"
)

// runDiff is `ckpt diff --session --run --json`, the engine's answer.
type runDiff struct {
	CheckpointID     string `json:"checkpoint_id"`
	PrevCheckpointID string `json:"prev_checkpoint_id"`
	Warning          string `json:"warning"`
	Files            []struct {
		Path         string `json:"path"`
		Kind         string `json:"kind"`
		CheckpointID string `json:"checkpoint_id"`
	} `json:"files"`
}

func (d *daemon) runDiff(session, run string) runDiff {
	var rd runDiff
	d.ckptJSON(&rd, "diff", "--session", session, "--run", run)
	return rd
}

func (rd runDiff) checkpoint(path string) string {
	for _, f := range rd.Files {
		if f.Path == path {
			return f.CheckpointID
		}
	}
	return ""
}

func (d *daemon) toolStart(session, run, call, command string) string {
	var cp struct {
		ID string `json:"checkpoint_id"`
	}
	d.ckptJSON(&cp, "tool", "start", "--session", session, "--run", run, "--call", call, "--command", command)
	return cp.ID
}

func runHash(session, run string) string { return fmt.Sprintf("/run?session=%s&run=%s", session, run) }

// The file change panel while the agent works and after: grouping under
// tool calls with their commands, first-touch rollback checkpoints,
// pending entries, the drift warning, and the disabled states.
func TestRunViewWhileTheAgentWorks(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n", "notes.md": "- buy milk\n"})
	d.write("notes.md", "- buy milk\n- call mom\n") // the person, before the turn
	d.ckpt("run", "start", "--session", "s1", "--run", "r1")
	d.ckpt("exec", "--session", "s1", "--run", "r1", "--call", "t1", "--", "sh", "-c", "sed -i s/one/two/ a.txt; echo package main > util.go")
	p := d.open(t, runHash("s1", "r1"))

	p.wait(`document.querySelector('#run-state').textContent.startsWith('open')`)
	if w := p.str(`document.querySelector('#run-warning')?.textContent`); !strings.Contains(w, "re-anchored") {
		t.Errorf("the drift warning is not shown: %q", w)
	}
	group := p.str(`document.querySelector('section.group[data-call="t1"] .command').textContent`)
	if !strings.Contains(group, "sed -i s/one/two/ a.txt") {
		t.Errorf("bash side effects are not under their call's command: %q", group)
	}
	for _, f := range []string{"a.txt", "util.go"} {
		if got := p.str(rowJS(f) + `.closest('section').dataset.call`); got != "t1" {
			t.Errorf("%s is grouped under %q, want t1", f, got)
		}
	}
	// The agent is working: nothing can be rolled back or marked.
	for _, b := range []string{"button.rollback", "button.accept", "button.reject"} {
		if !p.disabled(row("a.txt") + " " + b) {
			t.Errorf("%s is enabled while the run is open", b)
		}
	}
	if !p.disabled("#revert-run") {
		t.Error("Roll back this run is enabled while the run is open")
	}

	// A second tool call edits a.txt again: its rollback checkpoint stays
	// the first touch.
	t2 := d.toolStart("s1", "r1", "t2", "Edit "+d.path("b.txt"))
	p.wait(rowJS("b.txt") + `?.dataset.kind === 'pending'`)
	if !p.disabled(row("b.txt") + " button.rollback") {
		t.Error("a pending file without a checkpoint can be rolled back")
	}
	p.shot("pending")
	d.write("b.txt", "new\n")
	d.write("a.txt", "three\n")
	d.ckpt("tool", "end", "--session", "s1", "--run", "r1", "--call", "t2")
	p.wait(rowJS("b.txt") + `?.dataset.kind === 'added'`)
	d.ckpt("run", "end", "--session", "s1", "--run", "r1")
	p.wait(`document.querySelector('#run-state').textContent === 'ended'`)

	rd := d.runDiff("s1", "r1")
	for _, f := range rd.Files {
		if got := p.str(rowJS(f.Path) + `.dataset.checkpoint`); got != f.CheckpointID {
			t.Errorf("%s: the panel rolls back to %q, the run diff says %q", f.Path, got, f.CheckpointID)
		}
	}
	if cp := rd.checkpoint("a.txt"); cp == t2 || cp == "" {
		t.Errorf("a.txt's rollback checkpoint %q is the later tool call's %s, not its first touch", cp, t2)
	}
	if p.disabled(row("a.txt")+" button.rollback") || p.disabled("#revert-run") {
		t.Error("Rollback stays disabled after the run ended")
	}
	if _, ok := map[string]bool{"a.txt": true}["notes.md"]; !ok && p.str(rowJS("notes.md")) != "null" {
		t.Error("the person's edit before the turn is listed as the run's")
	}
	p.shot("ended")
	p.dark(true)
	p.shot("ended-dark")
}
