package uitest

import (
	"errors"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// agentTurn is a finished turn: r changes a.txt and adds util.go in tool
// call c1.
func agentTurn(d *daemon, run string) {
	d.ckpt("run", "start", "--session", "s1", "--run", run)
	d.ckpt("exec", "--session", "s1", "--run", run, "--call", "c1", "--", "sh", "-c", "echo agent >> a.txt; echo package main > util.go")
	d.ckpt("run", "end", "--session", "s1", "--run", run)
}

// Rollback asks first, naming what it restores and keeps; Cancel changes
// nothing; after the restore the list reloads from the daemon, the
// file's rollback checkpoint is still its first touch (the guard does not
// replace it), and Undo last restore brings the file back.
func TestRollbackConfirmReloadAndUndo(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n", "notes.md": "notes\n"})
	agentTurn(d, "r1")
	d.write("notes.md", "notes\nmine\n") // the person, after the turn
	p := d.open(t, runHash("s1", "r1"))
	before := p.str(rowJS("a.txt") + ".dataset.checkpoint")

	p.click(row("a.txt") + " button.rollback")
	p.wait(`document.getElementById('confirm').open`)
	body := p.str(`document.getElementById('confirm').innerText`)
	if !strings.Contains(body, "Roll back a.txt") || !strings.Contains(body, before) || !strings.Contains(body, "Will restore 1 path") || !strings.Contains(body, "notes.md") {
		t.Errorf("the confirm dialog does not name what it restores and keeps:\n%s", body)
	}
	p.shot("confirm")
	p.click("#confirm-cancel")
	p.wait(`!document.getElementById('confirm').open && !window.ckpt.busy`)
	if got := d.read("a.txt"); got != "one\nagent\n" {
		t.Fatalf("Cancel changed a.txt: %q", got)
	}

	gen := js[int](p, `window.ckpt.stats.reloadsApplied`)
	p.click(row("a.txt") + " button.rollback")
	p.wait(`document.getElementById('confirm').open`)
	p.click("#confirm-ok")
	p.wait(`!window.ckpt.busy && !document.getElementById('undo').disabled`)
	if got := d.read("a.txt"); got != "one\n" {
		t.Fatalf("after Rollback a.txt = %q", got)
	}
	if got := d.read("notes.md"); got != "notes\nmine\n" {
		t.Fatalf("Rollback of a.txt touched the person's notes.md: %q", got)
	}
	p.wait(`window.ckpt.stats.reloadsApplied > ` + itoa(gen))
	if after := p.str(rowJS("a.txt") + ".dataset.checkpoint"); after != before || after != d.runDiff("s1", "r1").checkpoint("a.txt") {
		t.Errorf("after the restore a.txt rolls back to %q; before %q (the run diff's authority)", after, before)
	}
	if p.posts("restore") != 1 || p.posts("restore:dry") != 2 {
		t.Errorf("posts: %v", p.str(`JSON.stringify(window.ckpt.stats.posts)`))
	}

	p.click("#undo")
	p.wait(`document.getElementById('confirm').open`)
	if body := p.str(`document.getElementById('confirm').innerText`); !strings.Contains(body, "a.txt") {
		t.Errorf("the undo dialog does not name a.txt:\n%s", body)
	}
	p.click("#confirm-ok")
	p.wait(`!window.ckpt.busy`)
	if got := d.read("a.txt"); got != "one\nagent\n" {
		t.Fatalf("after Undo a.txt = %q", got)
	}
	p.shot("after-undo")
}

// Roll back this run restores only what the run changed, keeps the
// person's edits (also on a file the run changed), and a double click
// sends one request.
func TestRollBackRunKeepsThePersonsEditAndClicksOnce(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n", "b.txt": "b\n", "notes.md": "notes\n"})
	d.ckpt("run", "start", "--session", "s1", "--run", "r1")
	d.ckpt("exec", "--session", "s1", "--run", "r1", "--call", "c1", "--", "sh", "-c", "echo agent >> a.txt; echo agent >> b.txt")
	d.ckpt("run", "end", "--session", "s1", "--run", "r1")
	d.write("notes.md", "notes\nmine\n")
	d.write("b.txt", "b\nagent\nmine too\n")
	p := d.open(t, runHash("s1", "r1"))

	// Two clicks in one go: one dry run, one dialog.
	p.run()
	js[bool](p, `(() => { const b = document.getElementById('revert-run'); b.click(); b.click(); return true })()`)
	p.wait(`document.getElementById('confirm').open`)
	body := p.str(`document.getElementById('confirm').innerText`)
	if !strings.Contains(body, "Will restore 1 path") || !strings.Contains(body, "a.txt") || !strings.Contains(body, "b.txt") {
		t.Errorf("the dialog does not say a.txt is restored and b.txt kept:\n%s", body)
	}
	p.shot("confirm-run")
	js[bool](p, `(() => { const b = document.getElementById('confirm-ok'); b.click(); b.click(); return true })()`)
	p.wait(`!window.ckpt.busy`)
	if n, dry := p.posts("revert"), p.posts("revert:dry"); n != 1 || dry != 1 {
		t.Errorf("a double click sent %d reverts and %d dry runs, want 1 and 1", n, dry)
	}
	if got := d.read("a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q, want the run's change rolled back", got)
	}
	if got := d.read("b.txt"); got != "b\nagent\nmine too\n" {
		t.Errorf("b.txt = %q: the person's edit after the run was not kept", got)
	}
	if got := d.read("notes.md"); got != "notes\nmine\n" {
		t.Errorf("notes.md = %q: the person's edit was not kept", got)
	}
	p.shot("after-revert")
}

// While a restore is in flight the daemon answers another with 409.
func TestConcurrentRestoreIs409(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 3000; i++ {
		files["f/"+itoa(i)+".txt"] = "v1\n"
	}
	d := startDaemon(t, files)
	var cp struct {
		ID string `json:"checkpoint_id"`
	}
	d.ckptJSON(&cp, "checkpoint", "-m", "v1")
	d.ckpt("exec", "--session", "s", "--run", "r", "--call", "c", "--", "sh", "-c", "for f in f/*.txt; do echo v2 > $f; done")
	d.ckpt("status")
	codes := make([]int, 4)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := d.request("POST", "/api/restore", map[string]any{"ws": d.ws, "checkpoint_id": cp.ID, "exact": true}, nil)
			codes[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	ok, busy := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			busy++
		}
	}
	if ok < 1 || busy < 1 || ok+busy != len(codes) {
		t.Fatalf("concurrent restores answered %v; want one 200 and 409 for those in flight meanwhile", codes)
	}
}

// Accept and Reject are persisted by the daemon: they survive a reload,
// disable the file's actions, and Clear mark undoes them.
func TestReviewMarksSurviveReload(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n"})
	agentTurn(d, "r1")
	p := d.open(t, runHash("s1", "r1"))
	// The review event can re-render a row before the POST that set the
	// mark returns: until it does, the panel is busy and every row's
	// buttons stay disabled (a click does nothing), so each wait is for both.
	p.click(row("util.go") + " button.accept")
	p.wait(rowJS("util.go") + `?.dataset.review === 'accepted' && !window.ckpt.busy`)
	p.click(row("a.txt") + " button.reject")
	p.wait(rowJS("a.txt") + `?.dataset.review === 'rejected' && !window.ckpt.busy`)
	p.run(chromedp.Reload())
	p.wait(`document.body.dataset.gen >= 1 && ` + rowJS("a.txt") + `?.dataset.review === 'rejected'`)
	if p.str(rowJS("util.go")+".dataset.review") != "accepted" {
		t.Fatal("the accept mark did not survive a reload")
	}
	for _, b := range []string{"button.rollback", "button.accept", "button.reject"} {
		if !p.disabled(row("a.txt") + " " + b) {
			t.Errorf("%s is enabled on a rejected file", b)
		}
	}
	p.shot("marked")
	// The CLI shows the marks and sets them too.
	var rv struct {
		Reviews []struct{ Path, Mark string } `json:"reviews"`
	}
	d.ckptJSON(&rv, "review", "--session", "s1", "--run", "r1")
	if len(rv.Reviews) != 2 || rv.Reviews[0].Path != "a.txt" || rv.Reviews[0].Mark != "rejected" || rv.Reviews[1].Mark != "accepted" {
		t.Errorf("ckpt review: %+v", rv.Reviews)
	}
	for _, bad := range [][]string{
		{"review", "--session", "s1", "--run", "r1", "--accept", "../x"},
		{"review", "--session", "s1", "--run", "r1", "--accept", "nope.txt"},
		{"review", "--session", "s1", "--run", "r1", "--accept", "--reject", "a.txt"},
		{"review", "--session", "s1", "--run", "r1", "a.txt"},
	} {
		if out, err := d.ckptErr(bad...); exitCode(err) != 2 || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("ckpt %v: %v %q; want exit 2 with one line", bad, err, out)
		}
	}
	d.ckpt("review", "--session", "s1", "--run", "r1", "--clear", "util.go")
	p.run(chromedp.Reload()) // and a mark cleared by the CLI stays cleared after a reload
	p.wait(`document.body.dataset.gen >= 1 && ` + rowJS("util.go") + `?.dataset.review === ''`)
	p.click(row("a.txt") + " button.clear")
	p.wait(rowJS("a.txt") + `?.dataset.review === '' && !window.ckpt.busy`)
	if p.disabled(row("a.txt") + " button.rollback") {
		t.Error("Rollback stays disabled after the mark is cleared")
	}
}

// Several restore events in a row: each starts a reload, only the latest
// is applied; and the next turn's files bind to the restored state.
func TestRestoreEventsInARowApplyTheLatestReload(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n"})
	agentTurn(d, "r1")
	p := d.open(t, runHash("s1", "r1"))
	p.wait(`!window.ckpt.loading`)
	started := js[int](p, `window.ckpt.stats.reloadsStarted`)
	applied := js[int](p, `window.ckpt.stats.reloadsApplied`)
	dropped := js[int](p, `window.ckpt.stats.reloadsDropped`)
	js[bool](p, `(() => { for (let i = 0; i < 3; i++) window.ckpt.onEvent('restore', {}); return true })()`)
	p.wait(`!window.ckpt.loading`)
	if s := js[int](p, `window.ckpt.stats.reloadsStarted`); s != started+3 {
		t.Errorf("3 restore events started %d reloads", s-started)
	}
	if a, dr := js[int](p, `window.ckpt.stats.reloadsApplied`), js[int](p, `window.ckpt.stats.reloadsDropped`); a != applied+1 || dr != dropped+2 {
		t.Errorf("3 restore events in a row applied %d reloads and dropped %d; want 1 and 2", a-applied, dr-dropped)
	}

	// A real restore, then the next turn: its files bind to the restored
	// state (the engine's first-touch checkpoint of r2, at or before r2's
	// baseline, which is what the restore brought back), never to r1's end.
	rd1 := d.runDiff("s1", "r1")
	d.ckpt("restore", rd1.PrevCheckpointID, "--yes")
	d.ckpt("run", "start", "--session", "s1", "--run", "r2")
	d.write("a.txt", "r2\n")
	d.ckpt("run", "end", "--session", "s1", "--run", "r2")
	p2 := d.open(t, runHash("s1", "r2"))
	rd2 := d.runDiff("s1", "r2")
	got := p2.str(rowJS("a.txt") + ".dataset.checkpoint")
	if got != rd2.checkpoint("a.txt") || got == rd1.CheckpointID {
		t.Errorf("r2's a.txt rolls back to %q; the run diff says %q (r1's end is %q)", got, rd2.checkpoint("a.txt"), rd1.CheckpointID)
	}
	var show struct {
		Changes []struct{ Path string } `json:"files"`
	}
	d.ckptJSON(&show, "diff", got, rd2.PrevCheckpointID)
	if len(show.Changes) != 0 {
		t.Errorf("r2's rollback checkpoint %s differs from the restored state %s: %+v", got, rd2.PrevCheckpointID, show.Changes)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// After an undo, the next turn's files bind to the state the undo brought
// back (the guard's), as the run diff says.
func TestNextTurnAfterUndoBindsToTheGuard(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n"})
	agentTurn(d, "r1")
	rd1 := d.runDiff("s1", "r1")
	d.ckpt("restore", rd1.PrevCheckpointID, "--yes")
	var undo struct {
		Guard string `json:"guard_checkpoint_id"`
	}
	d.ckptJSON(&undo, "undo", "--yes")
	if got := d.read("a.txt"); got != "one\nagent\n" {
		t.Fatalf("after undo a.txt = %q", got)
	}
	d.ckpt("run", "start", "--session", "s1", "--run", "r2")
	d.write("a.txt", "r2\n")
	d.ckpt("run", "end", "--session", "s1", "--run", "r2")
	p := d.open(t, runHash("s1", "r2"))
	rd2 := d.runDiff("s1", "r2")
	got := p.str(rowJS("a.txt") + ".dataset.checkpoint")
	if got != rd2.checkpoint("a.txt") {
		t.Fatalf("r2's a.txt rolls back to %q; the run diff says %q", got, rd2.checkpoint("a.txt"))
	}
	var diff struct {
		Files []struct{ Path string } `json:"files"`
	}
	d.ckptJSON(&diff, "diff", got, rd1.CheckpointID)
	if len(diff.Files) != 0 {
		t.Errorf("r2's rollback checkpoint %s does not hold what the undo brought back (r1's end %s): %+v", got, rd1.CheckpointID, diff.Files)
	}
	// Rolling it back in the panel gives the undone state back.
	p.click(row("a.txt") + " button.rollback")
	p.wait(`document.getElementById('confirm').open`)
	p.click("#confirm-ok")
	p.wait(`!window.ckpt.busy`)
	if got := d.read("a.txt"); got != "one\nagent\n" {
		t.Errorf("after rolling back r2's a.txt: %q, want the state the undo brought back", got)
	}
}
