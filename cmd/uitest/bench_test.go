package uitest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ckptdev/ckpt/integration/client"
)

// benchWorkspace is a daemon whose workspace has a finished 1,000-file run
// (s/big) and a history of 10,000 checkpoints.
func benchWorkspace(b *testing.B) *daemon {
	d := startDaemon(b, map[string]string{"seed.txt": "x\n"})
	d.ckpt("run", "start", "--session", "s", "--run", "big")
	d.ckpt("exec", "--session", "s", "--run", "big", "--call", "gen", "--", "sh", "-c",
		`mkdir -p src; i=0; while [ $i -lt 1000 ]; do printf 'package src\n\nvar V%d = %d\n' $i $i > src/f$i.go; i=$((i+1)); done`)
	d.ckpt("run", "end", "--session", "s", "--run", "big")
	c, err := client.Dial(filepath.Join(d.state, "ckptd.sock"), client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	w := c.Workspace(d.ws)
	for i := 0; i < 10000; i++ {
		if _, err := w.Checkpoint(context.Background(), fmt.Sprintf("bench %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	return d
}

// BenchmarkPanel measures, in the browser, the first render of the run
// view of a 1,000-file run with 10,000 checkpoints in the history, and how
// long a file changed on disk takes to show in an open run view.
//
//	go test ./cmd/uitest -run '^$' -bench Panel -benchtime 20x
func BenchmarkPanel(b *testing.B) {
	d := benchWorkspace(b)
	b.Run("API", func(b *testing.B) {
		var run, status []float64
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			d.request("GET", "/api/run?"+d.q("session", "s", "run", "big"), nil, nil)
			run = append(run, float64(time.Since(t0).Microseconds())/1000)
			t0 = time.Now()
			d.request("GET", "/api/status?"+d.q(), nil, nil)
			status = append(status, float64(time.Since(t0).Microseconds())/1000)
		}
		report(b, run, "run")
		report(b, status, "status")
	})
	b.Run("RunViewFirstRender", func(b *testing.B) {
		p := d.open(b, runHash("s", "big"))
		var render, paint, api []float64
		for i := 0; i < b.N; i++ {
			p.run(chromedp.Navigate("about:blank"), chromedp.Navigate(d.base+"/#"+runHash("s", "big")+"&"+d.q()))
			p.wait(`document.body.dataset.gen >= 1 && window.ckpt.stats.firstPaint > 0 && document.querySelector('tr[data-path]') !== null`)
			if got := p.str(`document.querySelector('.run-head').textContent`); !strings.Contains(got, "1000 files") {
				b.Fatalf("the run view does not show the 1,000-file run: %q", got)
			}
			render = append(render, js[float64](p, `window.ckpt.stats.firstRender`))
			paint = append(paint, js[float64](p, `window.ckpt.stats.firstPaint`))
			api = append(api, js[float64](p, `(() => { const e = performance.getEntriesByType('resource').find((e) => e.name.includes('/api/run?')); return e ? e.responseEnd - e.requestStart : -1 })()`))
		}
		// Where the last one's time went (go test -v shows it).
		b.Logf("timings of the last load (ms since navigation): %s, rendered %.0f, painted %.0f", p.str(`performance.getEntriesByType('resource').map((e) => e.name.replace(/^.*\/(assets|api)\//, '$1/').replace(/\?.*/, '') + ' ' + Math.round(e.startTime) + '-' + Math.round(e.responseEnd)).join(', ')`), render[len(render)-1], paint[len(paint)-1])
		report(b, render, "render")
		report(b, paint, "painted")
		report(b, api, "api-run")
	})
	round := 0 // the benchmark runs its function more than once: a new run each time
	b.Run("ChangeToPanel", func(b *testing.B) {
		round++
		run := fmt.Sprintf("live%d", round)
		d.ckpt("run", "start", "--session", "s", "--run", run)
		defer d.ckpt("run", "end", "--session", "s", "--run", run)
		p := d.open(b, runHash("s", run))
		// Every 2 ms the page notes when a row first shows; a second event
		// stream notes when each change's event arrives.
		js[bool](p, fmt.Sprintf(`(() => { window.__seen = {}; window.__event = {}; setInterval(() => {
			for (const tr of document.querySelectorAll('tr[data-path]')) if (!(tr.dataset.path in window.__seen)) window.__seen[tr.dataset.path] = Date.now();
		}, 2);
		const es = new EventSource('/api/events?ws=' + encodeURIComponent(%q));
		es.onopen = () => { window.__open = true };
		es.addEventListener('change', (ev) => {
			const c = JSON.parse(ev.data).change; if (!(c.path in window.__event)) window.__event[c.path] = Date.now();
		}); return true })()`, d.ws))
		p.wait(`window.__open === true`)
		var ms, event []float64
		for i := 0; i < b.N; i++ {
			name := fmt.Sprintf("%s/f%d.txt", run, i)
			t0 := time.Now()
			d.write(name, "x\n")
			p.wait(fmt.Sprintf(`%q in window.__seen && %q in window.__event`, name, name))
			seen := js[float64](p, fmt.Sprintf(`window.__seen[%q]`, name))
			ms = append(ms, seen-float64(t0.UnixNano())/1e6)
			event = append(event, js[float64](p, fmt.Sprintf(`window.__event[%q]`, name))-float64(t0.UnixNano())/1e6)
		}
		report(b, ms, "latency")
		report(b, event, "event")
	})
}

// report adds the p50 and p99 of the samples (ms) to the benchmark.
func report(b *testing.B, ms []float64, what string) {
	slices.Sort(ms)
	at := func(q float64) float64 { return ms[min(len(ms)-1, int(q*float64(len(ms))))] }
	b.ReportMetric(at(0.5), what+"-p50-ms")
	b.ReportMetric(at(0.99), what+"-p99-ms")
	b.ReportMetric(ms[len(ms)-1], what+"-max-ms")
}
