package uitest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// bigRun is an open run s1/r1 whose tool call c1 modified n files
// src/f000.txt... that existed before it.
func bigRun(t *testing.T, n int) (*daemon, []string) {
	files := map[string]string{}
	var names []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("src/f%03d.txt", i)
		files[name] = "v1\n"
		names = append(names, name)
	}
	d := startDaemon(t, files)
	d.ckpt("run", "start", "--session", "s1", "--run", "r1")
	d.ckpt("exec", "--session", "s1", "--run", "r1", "--call", "c1", "--", "sh", "-c", "for f in src/*.txt; do echo v2 >> $f; done")
	return d, names
}

// activeRow is the path of the row holding the focus ("" if none does).
func (p *page) activeRow() string {
	return p.str(`document.activeElement?.closest('tr[data-path]')?.dataset.path ?? ''`)
}

func (p *page) key(keys string) {
	p.t.Helper()
	p.run(chromedp.KeyEvent(keys))
}

// A run of hundreds of files renders only the rows near the visible part
// of its list; scrolling shows the others, the keyboard reaches every row
// (arrows, Page Down, End, and Tab past the last rendered row), and a file
// that changes while its row is not rendered shows its new state once
// scrolled to.
func TestRunViewListIsWindowed(t *testing.T) {
	const n = 400
	d, names := bigRun(t, n)
	p := d.open(t, runHash("s1", "r1"))
	last := names[n-1]
	p.wait(rowJS(names[0]) + `?.dataset.kind === 'modified'`)
	if head := p.str(`document.querySelector('.run-head').textContent`); !strings.Contains(head, fmt.Sprintf("%d files", n)) {
		t.Fatalf("the run view does not count %d files: %q", n, head)
	}
	rendered := js[int](p, `document.querySelectorAll('tr[data-path]').length`)
	if rendered >= n/2 || rendered < 10 {
		t.Fatalf("%d of %d rows are in the page: the list is not windowed", rendered, n)
	}
	if p.str(rowJS(last)) != "null" || p.str(rowJS(names[40])) != "null" {
		t.Fatal("rows far down the list are rendered before they are scrolled to")
	}

	// Scrolling to the end shows the last row, under its group's head.
	js[bool](p, `(document.getElementById('files').scrollTop = 1e9, true)`)
	p.wait(rowJS(last) + `?.dataset.kind === 'modified'`)
	if !js[bool](p, `(() => { const l = document.getElementById('files').getBoundingClientRect(), r = `+rowJS(last)+`.getBoundingClientRect(); return r.top >= l.top && r.bottom <= l.bottom + 1 })()`) {
		t.Error("the last row is not inside the list's visible part when scrolled to the end")
	}
	if !js[bool](p, `(() => { const l = document.getElementById('files').getBoundingClientRect(), h = document.querySelector('section.group[data-call="c1"] .group-head').getBoundingClientRect(); return Math.abs(h.top - l.top) <= 2 })()`) {
		t.Error("the group's head does not stay at the top while its rows scroll by")
	}
	if p.str(rowJS(names[0])) != "null" {
		t.Error("rows scrolled far out of view stay in the page")
	}
	p.shot("scrolled-to-end")

	// The keyboard: from the first row, 30 times Arrow Down reaches a row
	// that was not rendered; Page Down moves further; End the last row,
	// Home the first again; the same control keeps the focus.
	js[bool](p, `(document.getElementById('files').scrollTop = 0, true)`)
	p.wait(rowJS(names[0]) + ` !== null && ` + rowJS(names[30]) + ` === null`)
	js[bool](p, `(`+rowJS(names[0])+`.querySelector('td.path button').focus(), true)`)
	for i := 0; i < 30; i++ {
		p.key(kb.ArrowDown)
	}
	if got := p.activeRow(); got != names[30] {
		t.Fatalf("30 times Arrow Down from %s focuses %q, want %s", names[0], got, names[30])
	}
	if cls := p.str(`document.activeElement.className`); cls != "link" {
		t.Errorf("Arrow Down moved the focus from the path to %q", cls)
	}
	p.key(kb.PageDown)
	if got := p.activeRow(); got <= names[31] || got >= names[60] {
		t.Errorf("Page Down from %s focuses %q", names[30], got)
	}
	p.key(kb.End)
	if got := p.activeRow(); got != last {
		t.Fatalf("End focuses %q, want %s", got, last)
	}
	p.key(kb.ArrowUp)
	if got := p.activeRow(); got != names[n-2] {
		t.Errorf("Arrow Up from the last row focuses %q", got)
	}
	p.key(kb.Home)
	if got := p.activeRow(); got != names[0] {
		t.Fatalf("Home focuses %q, want %s", got, names[0])
	}

	// Tab from the last rendered row's last control reaches the row after
	// it, which was not in the page when the focus left.
	lastRendered := p.str(`[...document.querySelectorAll('tr[data-path]')].pop().dataset.path`)
	next := names[indexOf(names, lastRendered)+1]
	if p.str(rowJS(next)) != "null" {
		t.Fatalf("the row after the last rendered one, %s, is rendered", next)
	}
	js[bool](p, `(`+rowJS(lastRendered)+`.querySelector('a.history').focus(), true)`)
	p.key(kb.Tab)
	if got := p.activeRow(); got != next {
		t.Fatalf("Tab from the last rendered row %s focuses %q, want %s", lastRendered, got, next)
	}

	// A change to a file whose row is not rendered shows once scrolled to.
	js[bool](p, `(document.activeElement.blur(), document.getElementById('files').scrollTop = 0, true)`)
	p.wait(`!window.ckpt.loading && ` + rowJS(last) + ` === null`)
	applied := js[int](p, `window.ckpt.stats.reloadsApplied`)
	if err := os.Remove(d.path(last)); err != nil {
		t.Fatal(err)
	}
	p.wait(`!window.ckpt.loading && window.ckpt.stats.reloadsApplied > ` + itoa(applied))
	js[bool](p, `(document.getElementById('files').scrollTop = 1e9, true)`)
	p.wait(rowJS(last) + `?.dataset.kind === 'deleted'`)
	p.shot("deleted-far-down")
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
