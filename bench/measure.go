package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// results is one harness run.
type results struct {
	Date       string             `json:"date"`
	Command    string             `json:"command"`
	Machine    map[string]string  `json:"machine"`
	Runs       int                `json:"runs"`
	Daemon     bool               `json:"daemon"`
	DaemonNote string             `json:"daemon_note,omitempty"`
	Floor      map[string]float64 `json:"floor_ms"`
	Trees      []*treeResult      `json:"trees"`
	Seconds    float64            `json:"seconds"`
}

// treeResult is everything measured on one tree. Times are in ms.
type treeResult struct {
	Name       string               `json:"name"`
	Files      int64                `json:"files"`     // ckpt's count
	GitFiles   int                  `json:"git_files"` // git ls-files
	Bytes      int64                `json:"bytes"`     // du of the tree
	Samples    map[string][]float64 `json:"samples_ms"`
	Sizes      map[string]int64     `json:"sizes"`
	RSS        map[string]int64     `json:"rss"`
	Latency    *latencyResult       `json:"latency,omitempty"`
	Daemon     bool                 `json:"daemon"`
	BurstFiles int                  `json:"burst_files,omitempty"`
	// SeriesPeakAt is what the harness was doing when the daemon's RSS
	// peaked during the measured series.
	SeriesPeakAt string   `json:"series_peak_at,omitempty"`
	Load         []string `json:"loadavg,omitempty"` // at the start and the end`
	Notes        []string `json:"notes,omitempty"`
	Seconds      float64  `json:"seconds"`
}

// add records one sample: wall time under key, CPU time under key#cpu.
func (t *treeResult) add(key string, d timing) {
	t.Samples[key] = append(t.Samples[key], ms(d.wall))
	t.Samples[key+"#cpu"] = append(t.Samples[key+"#cpu"], ms(d.cpu))
}

func (t *treeResult) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	t.Notes = append(t.Notes, s)
	fmt.Fprintf(os.Stderr, "  %s: %s\n", t.Name, s)
}

// median of ms samples; NaN-free: 0 when there are none.
func median(xs []float64) float64 { return quantile(xs, 0.5) }

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if q == 0.5 && len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	i := int(q*float64(len(s)-1) + 0.5)
	return s[min(i, len(s)-1)]
}

// alternate runs a then b on even runs and b then a on odd ones, so neither
// approach always gets the warmer cache.
func alternate(i int, a, b func() error) error {
	first, second := a, b
	if i%2 == 1 {
		first, second = b, a
	}
	if err := first(); err != nil {
		return err
	}
	return second()
}

var checkpointChanges = []int{0, 10, 1000}
var restoreChanges = []int{10, 1000}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// measureTree runs every measurement on one tree.
func (b *bench) measureTree(spec treeSpec) (*treeResult, error) {
	tr := &treeResult{Name: spec.Name, Samples: map[string][]float64{}, Sizes: map[string]int64{}, RSS: map[string]int64{}}
	dir := filepath.Join(b.work, spec.Name)
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	wc, wg := filepath.Join(dir, "ws-ckpt"), filepath.Join(dir, "ws-git")
	state, gitDir := filepath.Join(dir, "state"), filepath.Join(dir, "shadow.git")
	tr.Load = append(tr.Load, loadavg())
	defer func() { tr.Load = append(tr.Load, loadavg()) }()
	b.logf("tree %s: preparing", spec.Name)
	if spec.Copy != "" {
		if err := copyTree(b.ctx, spec.Copy, wc); err != nil {
			return nil, err
		}
	} else {
		if err := os.MkdirAll(wc, 0o755); err != nil {
			return nil, err
		}
		if _, err := genTree(wc, spec.Files); err != nil {
			return nil, err
		}
	}
	if err := copyTree(b.ctx, wc, wg); err != nil {
		return nil, err
	}
	tr.Bytes = diskUsage(wc)
	c := newClient(b.ctx, b.work, b.ckpt, wc, state)
	g := newShadow(b.ctx, b.work, gitDir, wg)

	// First import / first shadow commit.
	b.logf("tree %s: import", spec.Name)
	for i := 0; i < b.o.importRuns; i++ {
		err := alternate(i, func() error {
			os.RemoveAll(state)
			d, s, err := c.status()
			tr.RSS["import_embedded_maxrss"] = max(tr.RSS["import_embedded_maxrss"], d.maxRSS)
			if err != nil {
				return err
			}
			tr.add("import/ckpt", d)
			tr.Files = s.Files
			return nil
		}, func() error {
			d, err := g.importRepo()
			tr.add("import/git", d)
			return err
		})
		if err != nil {
			return nil, err
		}
		if b.ckptd != "" {
			dstate := filepath.Join(dir, "state-daemon-import")
			os.RemoveAll(dstate)
			dc := newClient(b.ctx, b.work, b.ckpt, wc, dstate)
			d, took, err := startDaemon(b.ctx, b.ckptd, dc, filepath.Join(dir, "ckptd-import.log"))
			if err != nil {
				b.noDaemon(tr, err)
			} else {
				tr.add("import/ckptd", timing{wall: took, cpu: cpuTime(d.pid())})
				m, _ := procMem(d.pid())
				tr.RSS["import_hwm"] = max(tr.RSS["import_hwm"], m.HWM)
				if err := d.stop(); err != nil {
					tr.note("%v", err)
				}
			}
			os.RemoveAll(dstate)
		}
	}
	files, err := trackedFiles(g)
	if err != nil {
		return nil, err
	}
	if out, err := g.output("ls-files"); err == nil {
		tr.GitFiles = countLines(out)
	}
	if int64(tr.GitFiles) != tr.Files {
		tr.note("ckpt captures %d files, git tracks %d", tr.Files, tr.GitFiles)
	}
	tr.Sizes["store_import"] = diskUsage(state)
	tr.Sizes["git_import"] = diskUsage(gitDir)
	d, err := g.gc()
	if err != nil {
		return nil, err
	}
	tr.add("gc/git", d)
	tr.Sizes["git_import_gc"] = diskUsage(gitDir)

	// Embedded: no daemon, every command scans.
	b.logf("tree %s: embedded", spec.Name)
	if err := b.series(tr, c, g, files, "ckpt"); err != nil {
		return nil, err
	}

	// With the daemon.
	if b.ckptd != "" {
		b.logf("tree %s: daemon", spec.Name)
		if err := b.daemonSeries(tr, dir, c, g, files); errors.Is(err, errDaemonDied) {
			// Someone else's SIGTERM, or a crash: say so and go on without.
			tr.note("%v", err)
			tr.Daemon = false
			for k := range tr.Samples {
				if strings.Contains(k, "ckptd") {
					delete(tr.Samples, k)
				}
			}
			// The trees may differ now: make the ckpt copy the git one again.
			os.RemoveAll(wc)
			if err := copyTree(b.ctx, wg, wc); err != nil {
				return nil, err
			}
		} else if err != nil {
			return nil, err
		}
	}

	// The stores after the same history.
	if _, _, err := c.checkpoint(); err != nil {
		return nil, err
	}
	if _, err := g.checkpoint(); err != nil {
		return nil, err
	}
	tr.Sizes["store_end"] = diskUsage(state)
	tr.Sizes["git_end"] = diskUsage(gitDir)
	if d, err = g.gc(); err != nil {
		return nil, err
	}
	tr.add("gc/git", d)
	tr.Sizes["git_end_gc"] = diskUsage(gitDir)
	return tr, nil
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

// noDaemon gives up on the daemon for the rest of the run: its rows say
// why they are missing.
func (b *bench) noDaemon(tr *treeResult, err error) {
	tr.note("no daemon: %v", err)
	b.ckptd, b.daemonNote = "", firstLine(err.Error())
}

// series measures checkpoint, status and restore for one ckpt mode
// ("ckpt": embedded, "ckptd": through the daemon), alternating with the
// same operation of shadow git on the same edits.
func (b *bench) series(tr *treeResult, c *client, g *shadow, files []string, mode string) error {
	runs := b.o.runs
	for _, n := range checkpointChanges {
		setPhase(fmt.Sprintf("checkpoint, %d changed", n))
		m := modifyOnly(files, n)
		if n > 0 && m.count() < n {
			tr.note("checkpoint/%d: only %d files to change", n, m.count())
		}
		for i := 0; i < runs; i++ {
			tag := fmt.Sprintf("%s-c%d-%d", mode, n, i)
			if err := m.apply(c.tree, tag); err != nil {
				return err
			}
			if err := m.apply(g.workdir, tag); err != nil {
				return err
			}
			err := alternate(i, func() error {
				d, _, err := c.checkpoint()
				tr.add(fmt.Sprintf("checkpoint/%d/%s", n, mode), d)
				return err
			}, func() error {
				d, err := g.checkpoint()
				tr.add(fmt.Sprintf("checkpoint/%d/git", n), d)
				return err
			})
			if err != nil {
				return err
			}
		}
	}

	if mode == "ckptd" {
		// The same 10-file checkpoint, cut once the daemon has seen the
		// writes (300 ms later): what is left is the sync barrier and the
		// cut, without the wait for the debounce.
		setPhase("checkpoint, settled")
		m := modifyOnly(files, 10)
		for i := 0; i < runs; i++ {
			tag := fmt.Sprintf("%s-cs-%d", mode, i)
			if err := m.apply(c.tree, tag); err != nil {
				return err
			}
			if err := m.apply(g.workdir, tag); err != nil {
				return err
			}
			time.Sleep(300 * time.Millisecond)
			d, _, err := c.checkpoint()
			tr.add("checkpoint/10-settled/ckptd", d)
			if err != nil {
				return err
			}
			if _, err := g.checkpoint(); err != nil {
				return err
			}
		}
	}

	// Restore: back to a checkpoint after n files were added, modified or
	// deleted.
	_, base, err := c.checkpoint()
	if err != nil {
		return err
	}
	if _, err := g.checkpoint(); err != nil {
		return err
	}
	head, err := g.head()
	if err != nil {
		return err
	}
	for _, n := range restoreChanges {
		setPhase(fmt.Sprintf("restore, %d paths", n))
		for i := 0; i < runs; i++ {
			tag := fmt.Sprintf("%s-r%d-%d", mode, n, i)
			m := mixed(files, n, tag)
			if err := m.apply(c.tree, tag); err != nil {
				return err
			}
			if err := m.apply(g.workdir, tag); err != nil {
				return err
			}
			err := alternate(i, func() error {
				d, r, err := c.restore(base.CheckpointID)
				tr.add(fmt.Sprintf("restore/%d/%s", n, mode), d)
				if err == nil && len(r.Restored) != m.count() {
					tr.note("restore/%d (%s) restored %d paths, want %d", n, mode, len(r.Restored), m.count())
				}
				return err
			}, func() error {
				d, err := g.restore(head)
				tr.add(fmt.Sprintf("restore/%d/git", n), d)
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	// Status with 10 files changed since the current checkpoint (the
	// restores made their target current).
	setPhase("status")
	m := modifyOnly(files, 10)
	if err := m.apply(c.tree, mode+"-st"); err != nil {
		return err
	}
	if err := m.apply(g.workdir, mode+"-st"); err != nil {
		return err
	}
	for i := 0; i < runs; i++ {
		err := alternate(i, func() error {
			d, s, err := c.status()
			tr.add("status/"+mode, d)
			if err == nil && len(s.Changes) != m.count() {
				tr.note("status (%s) listed %d changes, want %d", mode, len(s.Changes), m.count())
			}
			return err
		}, func() error {
			d, err := g.status()
			tr.add("status/git", d)
			return err
		})
		if err != nil {
			return err
		}
	}

	dc, err := treeDigest(c.tree)
	if err != nil {
		return err
	}
	dg, err := treeDigest(g.workdir)
	if err != nil {
		return err
	}
	if dc != dg {
		tr.note("after the restores (%s) the trees differ: ckpt %s, git %s", mode, dc, dg)
	}
	return nil
}

// daemonSeries starts ckptd on the imported store and measures the same
// series through it, then its memory and write-to-captured latency.
func (b *bench) daemonSeries(tr *treeResult, dir string, c *client, g *shadow, files []string) (err error) {
	d, took, err := startDaemon(b.ctx, b.ckptd, c, filepath.Join(dir, "ckptd.log"))
	if err != nil {
		b.noDaemon(tr, err)
		return nil
	}
	defer d.stop()
	defer func() {
		if err != nil && !errors.Is(err, errDaemonDied) && d.exited() {
			err = fmt.Errorf("%w (%v): %s", errDaemonDied, err, tail(d.log))
		}
	}()
	tr.Daemon = true
	tr.add("start/ckptd", timing{wall: took, cpu: cpuTime(d.pid())})
	c.daemon = d
	defer func() { c.daemon = nil }()
	// The embedded import stored its contents with the fast codec; the
	// daemon recompresses them first. The series waits for that, as the
	// 200k bench does, so that no request's CPU or RSS includes it.
	bgTook, bgCPU, quiet := waitQuiet(d, c.state, 10*time.Minute)
	tr.add("start/background", timing{wall: bgTook, cpu: bgCPU})
	if !quiet {
		tr.note("the daemon was still busy with background work after %v: the daemon figures include some of it", bgTook.Round(time.Second))
	}
	idle := settledRSS(d.pid())
	tr.RSS["idle"], tr.RSS["idle_anon"], tr.RSS["idle_file"] = idle.RSS, idle.Anon, idle.File

	// A burst of new files (realistic sizes, as a checkout or a generator
	// makes them): the daemon's peak memory while it captures them.
	setPhase("burst")
	sampler := sampleRSS(d.pid())
	burst, wrote, err := writeBurst(c.tree, b.o.burst)
	if err != nil {
		sampler.stop()
		return err
	}
	_, s, err := c.status() // syncs: every write captured
	captured := wrote + s.took
	time.Sleep(time.Second)
	bp, _ := sampler.stop()
	tr.RSS["burst_peak"], tr.RSS["burst_peak_anon"], tr.RSS["burst_peak_file"] = bp.RSS, bp.Anon, bp.File
	if err != nil {
		return err
	}
	tr.BurstFiles = len(burst)
	tr.Samples["burst/write"] = []float64{ms(wrote)}
	tr.Samples["burst/captured"] = []float64{ms(captured)}
	if got := countPrefix(s.Changes, "bench-burst/"); got != len(burst) {
		tr.note("burst: status lists %d of %d new files", got, len(burst))
	}
	if err := mirror(c.tree, g.workdir, burst); err != nil {
		return err
	}

	// Write-to-captured latency.
	setPhase("latency")
	lat, written, err := measureLatency(b.ctx, d, c, files, b.o.latWrites)
	if err != nil {
		return fmt.Errorf("latency: %w", err)
	}
	tr.Latency = &lat
	if err := mirror(c.tree, g.workdir, written); err != nil {
		return err
	}

	// The series, with the daemon's memory sampled throughout.
	seriesSampler := sampleRSS(d.pid())
	err = b.series(tr, c, g, files, "ckptd")
	peak, at := seriesSampler.stop()
	tr.RSS["series_peak"], tr.RSS["series_peak_anon"], tr.RSS["series_peak_file"] = peak.RSS, peak.Anon, peak.File
	tr.SeriesPeakAt = at
	if err != nil {
		return err
	}
	m, _ := procMem(d.pid())
	tr.RSS["hwm"] = m.HWM
	return d.stop()
}

func countPrefix(changes []struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}, prefix string) int {
	n := 0
	for _, c := range changes {
		if len(c.Path) >= len(prefix) && c.Path[:len(prefix)] == prefix {
			n++
		}
	}
	return n
}

// mirror copies paths from one tree to the other, so both keep the same
// content after writes made to one only.
func mirror(from, to string, paths []string) error {
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(from, p))
		if os.IsNotExist(err) {
			os.Remove(filepath.Join(to, p))
			continue
		}
		if err != nil {
			return err
		}
		dst := filepath.Join(to, p)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		info, err := os.Stat(filepath.Join(from, p))
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// loadavg is the machine's 1-minute load average: other work on the machine
// shows in the numbers, so the report says how busy it was.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// writeBurst writes n new files of realistic sizes as fast as it can, in
// 50 new directories, and returns their paths and how long it took.
func writeBurst(root string, n int) ([]string, time.Duration, error) {
	var paths []string
	start := time.Now()
	buf := make([]byte, 0, 300<<10)
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("bench-burst/d%02d/f%05d.go", i%50, i)
		if i < 50 {
			if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
				return paths, 0, err
			}
		}
		r := rand.New(rand.NewPCG(99, uint64(i)))
		size, _ := fileSize(r)
		buf = append(buf[:0], fmt.Sprintf("package burst // %d\n", i)...)
		for len(buf) < size {
			buf = append(buf, linePool[r.IntN(len(linePool))]...)
		}
		if err := os.WriteFile(filepath.Join(root, rel), buf, 0o644); err != nil {
			return paths, 0, err
		}
		paths = append(paths, rel)
	}
	return paths, time.Since(start), nil
}
