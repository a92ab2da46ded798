package uitest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// One Chromium for the whole package run; each test gets its own tab.
var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	allocCancel   context.CancelFunc
	browserSkip   string
	shotDir       string
)

// chromium finds the browser: $CKPT_CHROMIUM, else Debian's chromium.
func chromium() string {
	if p := os.Getenv("CKPT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func startBrowser() {
	path := chromium()
	if path == "" {
		browserSkip = "no Chromium installed (apt-get install chromium, as .ci/run does; or set CKPT_CHROMIUM)"
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-dev-shm-usage", true))
	var actx context.Context
	actx, allocCancel = chromedp.NewExecAllocator(context.Background(), opts...)
	browserCtx, browserCancel = chromedp.NewContext(actx)
	if err := chromedp.Do(browserCtx); err != nil {
		browserSkip = fmt.Sprintf("Chromium at %s does not start: %v", path, err)
		return
	}
	shotDir = os.Getenv("CKPT_PANEL_SCREENSHOTS")
	if shotDir == "" {
		shotDir, _ = os.MkdirTemp("", "ckpt-panel-shots-")
	}
	os.MkdirAll(shotDir, 0o755)
}

func closeBrowser() {
	if browserCancel != nil {
		browserCancel()
		allocCancel()
	}
}

// page is one browser tab on a daemon's panel.
type page struct {
	t   testing.TB
	ctx context.Context
	d   *daemon
}

// open loads the panel at the view hash (e.g. "/run?session=s&run=r") in
// a new tab and waits for its first render.
func (d *daemon) open(t testing.TB, hash string) *page {
	t.Helper()
	browserOnce.Do(startBrowser)
	if browserSkip != "" {
		t.Skip(browserSkip)
	}
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	// The tab lives as long as the context of its first action: that one
	// has no timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("new tab: %v", err)
	}
	p := &page{t: t, ctx: ctx, d: d}
	p.run(chromedp.Navigate(d.url + "#" + hash + sep(hash) + d.q()))
	p.wait(`document.body.dataset.gen >= 1`)
	return p
}

func sep(hash string) string {
	if strings.Contains(hash, "?") {
		return "&"
	}
	return "?"
}

func (p *page) run(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.shot("failed")
		p.t.Fatalf("browser: %v", err)
	}
}

// wait polls the JavaScript condition until it is true (across a
// navigation: a poll in a page that went away is started again).
func (p *page) wait(cond string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithDeadline(p.ctx, deadline)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(time.Until(deadline))))
		cancel()
		if err == nil {
			return
		}
		if strings.Contains(err.Error(), "context") && strings.Contains(err.Error(), "id") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		dctx, dcancel := context.WithTimeout(p.ctx, 3*time.Second)
		html, herr := chromedp.Run(dctx, chromedp.Evaluate[string](`location.href + '\n' + document.body.innerText.slice(0, 2000)`))
		dcancel()
		if herr != nil {
			html = herr.Error()
		}
		p.shot("failed")
		p.t.Fatalf("waiting for %s: %v\npage:\n%s", cond, err, html)
	}
}

// js evaluates an expression (awaiting a promise).
func js[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (p *page) str(expr string) string {
	p.t.Helper()
	return js[string](p, `String(`+expr+`)`)
}

// click clicks the element sel names. A re-render (a live update) may
// replace the element between finding it and clicking it: then the click
// finds the new one and tries again.
func (p *page) click(sel string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithDeadline(p.ctx, deadline)
		err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel)))
		cancel()
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "Could not find node with given id") || time.Now().After(deadline) {
			p.shot("failed")
			p.t.Fatalf("browser: click %s: %v", sel, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// row is the selector of a file's row in the run view.
func row(path string) string { return fmt.Sprintf(`tr[data-path=%q]`, path) }

// rowJS is the expression for a file's row element.
func rowJS(path string) string {
	return fmt.Sprintf(`document.querySelector('tr[data-path=%q]')`, path)
}

func (p *page) disabled(sel string) bool {
	p.t.Helper()
	return js[bool](p, fmt.Sprintf(`document.querySelector(%q).disabled`, sel))
}

// shot saves a full-page screenshot under the test's name.
func (p *page) shot(name string) string {
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Logf("screenshot: %v", err)
		return ""
	}
	file := filepath.Join(shotDir, strings.ReplaceAll(p.t.Name(), "/", "_")+"-"+name+".png")
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		p.t.Logf("screenshot: %v", err)
	}
	p.t.Logf("screenshot %s", file)
	return file
}

// dark switches the page to prefers-color-scheme: dark.
func (p *page) dark(on bool) {
	v := "light"
	if on {
		v = "dark"
	}
	p.run(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}},
		})
		return err
	}))
}

// posts is how many POSTs the page sent to route (":dry" for dry runs).
func (p *page) posts(route string) int {
	return js[int](p, fmt.Sprintf(`window.ckpt.stats.posts[%q] || 0`, route))
}
