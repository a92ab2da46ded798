package uitest

import (
	"os"
	"testing"
)

// holdRunLoads makes the page hold the answers of GET /api/run (the
// request is served at once; the page sees the answer only when released),
// so that a test can see what the page shows before a reload is applied.
// window.__arrived counts the answers held, window.__release() lets the
// held ones through (and the next ones wait again), window.__unhold()
// lets every one through from then on.
func (p *page) holdRunLoads() {
	p.t.Helper()
	js[bool](p, `(() => {
		const orig = window.fetch;
		window.__held = []; window.__arrived = 0; window.__holding = true;
		window.fetch = (u, o) => {
			const r = orig(u, o);
			if (!window.__holding || !String(u).startsWith('/api/run?')) return r;
			return r.then((resp) => window.__holding ? new Promise((res) => { window.__arrived++; window.__held.push(() => res(resp)) }) : resp);
		};
		window.__release = () => { for (const f of window.__held.splice(0)) f(); return true };
		window.__unhold = () => { window.__holding = false; return window.__release() };
		return true })()`)
}

// A change event of the run patches its file's row at once, before the
// reload it starts answers; a reload that started before the change (and
// so does not have it) leaves the patch shown; the next reload confirms
// the row with the daemon's own data (its rollback checkpoint).
func TestChangeEventPatchesTheRowBeforeTheReload(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n", "gone.txt": "x\n"})
	d.ckpt("run", "start", "--session", "s1", "--run", "r1")
	d.ckpt("exec", "--session", "s1", "--run", "r1", "--call", "c1", "--", "sh", "-c", "echo two >> a.txt")
	p := d.open(t, runHash("s1", "r1"))
	p.wait(`!window.ckpt.loading && ` + rowJS("a.txt") + `?.dataset.kind === 'modified'`)
	p.holdRunLoads()

	// A reload starts and its answer, from before the change, is held.
	js[bool](p, `(window.ckpt.onEvent('checkpoint', {}), true)`)
	p.wait(`window.__arrived === 1`)
	applied := js[int](p, `window.ckpt.stats.reloadsApplied`)
	d.write("new.txt", "new\n")
	if err := os.Remove(d.path("gone.txt")); err != nil {
		t.Fatal(err)
	}
	p.wait(rowJS("new.txt") + `?.dataset.kind === 'added' && ` + rowJS("gone.txt") + `?.dataset.kind === 'deleted'`)
	if got := js[int](p, `window.ckpt.stats.reloadsApplied`); got != applied {
		t.Fatalf("the rows showed with a reload applied (%d → %d), not from the event", applied, got)
	}
	for _, f := range []string{"new.txt", "gone.txt"} {
		if p.str(rowJS(f)+".dataset.provisional") != "1" {
			t.Errorf("%s's patched row is not marked as waiting for the daemon", f)
		}
		if !p.disabled(row(f) + " button.rollback") {
			t.Errorf("%s can be rolled back while the run is open", f)
		}
	}
	p.shot("patched")

	// The stale reload is applied: the patched rows stay.
	js[bool](p, `window.__release()`)
	p.wait(`window.ckpt.stats.reloadsApplied > ` + itoa(applied))
	if p.str(rowJS("new.txt")) == "null" || p.str(rowJS("gone.txt")) == "null" {
		t.Fatal("a reload that started before the change removed its patched rows")
	}
	// The reload after the change confirms them.
	js[bool](p, `window.__unhold()`)
	p.wait(`!window.ckpt.loading && ` + rowJS("new.txt") + `?.dataset.provisional === undefined && ` + rowJS("gone.txt") + `?.dataset.provisional === undefined`)
	rd := d.runDiff("s1", "r1")
	for _, f := range []string{"new.txt", "gone.txt", "a.txt"} {
		want := rd.checkpoint(f)
		if want == "" {
			want = rd.PrevCheckpointID
		}
		if got := p.str(rowJS(f) + ".dataset.checkpoint"); got != want {
			t.Errorf("%s: after the confirming reload the row rolls back to %q, the run diff says %q", f, got, want)
		}
	}
	if got := p.str(rowJS("gone.txt") + ".dataset.kind"); got != "deleted" {
		t.Errorf("gone.txt is %q after the reload", got)
	}
}

// A review mark set in one panel, or with ckpt review, shows in another
// open panel at once: the daemon sends it as an event.
func TestReviewMarkShowsLiveInAnotherPanel(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "one\n"})
	agentTurn(d, "r1")
	p1 := d.open(t, runHash("s1", "r1"))
	p2 := d.open(t, runHash("s1", "r1"))
	p2.wait(`!window.ckpt.loading`)
	events := js[int](p2, `window.ckpt.stats.events`)

	p1.click(row("util.go") + " button.accept")
	p2.wait(rowJS("util.go") + `?.dataset.review === 'accepted'`)
	if js[int](p2, `window.ckpt.stats.events`) == events {
		t.Error("the mark showed in the other panel without an event")
	}
	if !p2.disabled(row("util.go") + " button.rollback") {
		t.Error("Rollback stays enabled in the other panel on an accepted file")
	}

	d.ckpt("review", "--session", "s1", "--run", "r1", "--reject", "a.txt")
	for _, p := range []*page{p1, p2} {
		p.wait(rowJS("a.txt") + `?.dataset.review === 'rejected'`)
	}
	d.ckpt("review", "--session", "s1", "--run", "r1", "--clear", "util.go")
	for _, p := range []*page{p1, p2} {
		p.wait(rowJS("util.go") + `?.dataset.review === ''`)
	}
	p2.shot("marks-live")
}
