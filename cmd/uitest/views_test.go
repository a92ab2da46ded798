package uitest

import (
	"strings"
	"testing"
)

// The timeline: sessions, runs, tool calls, the person's edits between
// turns, checkpoints by reason with restore guards, and paging.
func TestTimeline(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n", "notes.md": "n\n"})
	agentTurn(d, "r1")
	d.write("notes.md", "n\nmine\n")
	d.write("todo.md", "x\n")
	agentTurn(d, "r2")
	rd := d.runDiff("s1", "r1")
	d.ckpt("restore", rd.PrevCheckpointID, "--yes")
	for i := 0; i < 55; i++ {
		d.ckpt("checkpoint", "-m", "manual "+itoa(i))
	}
	p := d.open(t, "/timeline")
	p.wait(`document.querySelectorAll('#checkpoints li').length === 50`)
	text := p.str(`document.getElementById('main').innerText`)
	for _, want := range []string{"session s1", "run r1", "run r2", "c1", "echo agent >> a.txt", "you changed 2 files between turns", "guard", "Last restore"} {
		if !strings.Contains(text, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}
	p.shot("timeline")
	p.click("#older")
	p.wait(`document.querySelectorAll('#checkpoints li').length > 50`)
	if text := p.str(`document.getElementById('checkpoints').innerText`); !strings.Contains(text, "end of turn") || !strings.Contains(text, "your edits") {
		t.Errorf("older checkpoints lack the turns' ends and the person's edits:\n%s", text)
	}
	var total struct {
		Checkpoints []struct{} `json:"checkpoints"`
	}
	d.ckptJSON(&total, "log")
	if n := js[int](p, `document.querySelectorAll('#checkpoints li').length`); n != len(total.Checkpoints) && n != 100 {
		t.Errorf("after Older: %d checkpoints listed of %d", n, len(total.Checkpoints))
	}
	p.dark(true)
	p.shot("timeline-dark")
}

// The diff viewer: per file, per tool call and per run; unified and side
// by side; binary files named as such.
func TestDiffViewer(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	d.ckpt("run", "start", "--session", "s1", "--run", "r1")
	d.ckpt("exec", "--session", "s1", "--run", "r1", "--call", "c1", "--", "sh", "-c", "sed -i s/two/TWO/ a.txt; printf 'a\\000b' > blob.bin")
	d.ckpt("exec", "--session", "s1", "--run", "r1", "--call", "c2", "--", "sh", "-c", "echo new > c.txt")
	d.ckpt("run", "end", "--session", "s1", "--run", "r1")
	p := d.open(t, runHash("s1", "r1"))
	js[bool](p, `(localStorage.setItem('ckpt.diffMode', 'unified'), true)`)

	p.click(row("a.txt") + " td.path button")
	p.wait(`document.querySelector('#diff-pane .diff.unified tr.del') !== null`)
	if got := p.str(`document.querySelector('#diff-pane tr.del td.code').textContent`); !strings.Contains(got, "two") {
		t.Errorf("unified diff: removed line %q", got)
	}
	if got := p.str(`document.querySelector('#diff-pane tr.add td.code').textContent`); !strings.Contains(got, "TWO") {
		t.Errorf("unified diff: added line %q", got)
	}
	p.shot("unified")
	p.click(`#diff-pane .diff-mode button:nth-child(2)`)
	p.wait(`document.querySelector('#diff-pane .diff.split td.code.del') !== null`)
	if got := p.str(`document.querySelector('#diff-pane .split td.code.del').parentElement.querySelector('td.code.add').textContent`); got != "TWO" {
		t.Errorf("side by side: the removed line is not beside the added one: %q", got)
	}
	p.shot("split")

	p.click(row("blob.bin") + " td.path button")
	p.wait(`document.querySelector('#diff-pane p.binary') !== null`)

	p.click(`section.group[data-call="c2"] .group-head button`)
	p.wait(`document.querySelector('#diff-pane h3').textContent === 'Diff of tool call c2'`)
	if n := js[int](p, `document.querySelectorAll('#diff-pane section.diff').length`); n != 1 {
		t.Errorf("the diff of tool call c2 shows %d files, want 1 (c.txt)", n)
	}
	p.click(`#files ~ #diff-pane, .actions button:nth-child(2)`)
	p.wait(`document.querySelectorAll('#diff-pane section.diff').length === 3`)
	p.dark(true)
	p.shot("run-dark")
}

// Path history: every version with who made it, a diff between two, and
// restore of a version through the confirm dialog.
func TestPathHistory(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "v1\n"})
	d.ckpt("run", "start", "--session", "s1", "--run", "r1")
	d.ckpt("exec", "--session", "s1", "--run", "r1", "--call", "c1", "--", "sh", "-c", "echo v2 > a.txt")
	d.ckpt("run", "end", "--session", "s1", "--run", "r1")
	d.write("a.txt", "v3 mine\n")
	d.ckpt("status")
	p := d.open(t, "/history?path=a.txt")
	p.wait(`document.querySelectorAll('table.versions tbody tr').length >= 3`)
	text := p.str(`document.querySelector('table.versions').innerText`)
	for _, want := range []string{"tool call c1 of run s1/r1", "you (outside any run)"} {
		if !strings.Contains(text, want) {
			t.Errorf("history lacks %q:\n%s", want, text)
		}
	}
	p.wait(`document.querySelector('#version-diff tr.add td.code') !== null`)
	if got := p.str(`document.querySelector('#version-diff tr.add td.code').textContent`); !strings.Contains(got, "v3 mine") {
		t.Errorf("the diff between the two newest versions adds %q", got)
	}
	p.shot("history")
	oldest := p.str(`[...document.querySelectorAll('table.versions tbody tr')].pop().dataset.ref`)
	p.click(`tr[data-ref="` + oldest + `"] button.restore-version`)
	p.wait(`document.getElementById('confirm').open`)
	if body := p.str(`document.getElementById('confirm').innerText`); !strings.Contains(body, "a.txt") || !strings.Contains(body, oldest) {
		t.Errorf("the dialog does not name the version:\n%s", body)
	}
	p.click("#confirm-ok")
	p.wait(`!window.ckpt.busy`)
	if got := d.read("a.txt"); got != "v1\n" {
		t.Fatalf("after restoring %s a.txt = %q", oldest, got)
	}
	var h struct {
		Versions []struct{ By string } `json:"versions"`
	}
	d.ckptJSON(&h, "history", "a.txt")
	p.wait(`document.querySelectorAll('table.versions tbody tr').length === ` + itoa(len(h.Versions)))
}

// Drift: what the person changed since the agent's last turn, live.
func TestDriftAndLiveUpdates(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n"})
	agentTurn(d, "r1")
	p := d.open(t, "/drift")
	d.write("a.txt", "one\nagent\nmine\n")
	p.wait(`document.querySelector('#drift-files tr.add td.code')?.textContent.endsWith('mine')`)
	p.shot("drift")

	// The run view of an open run shows a file the moment it changes.
	d.ckpt("run", "start", "--session", "s1", "--run", "r2")
	p2 := d.open(t, runHash("s1", "r2"))
	d.write("live.txt", "x\n")
	p2.wait(rowJS("live.txt") + `?.dataset.kind === 'added'`)
	if n := js[int](p2, `window.ckpt.stats.events`); n == 0 {
		t.Error("the file appeared without an event")
	}
	for _, sel := range []string{"button.rollback", "button.accept", "button.reject"} {
		if label := p2.str(`document.querySelector('` + row("live.txt") + ` ` + sel + `').getAttribute('aria-label')`); !strings.Contains(label, "live.txt") {
			t.Errorf("%s has no label naming the file: %q", sel, label)
		}
	}
}
