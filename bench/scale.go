package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The large-tree run (-size 200k, -size 1m): one generated tree of that
// many files, the physical floor measured on it (floor.go), and the
// figures that matter at that size, each printed beside its floor and its
// shadow-git counterpart:
//
//	go run ./bench -size 200k          # about 5 minutes; needs ~2 GB of temp space
//	go run ./bench -size 1m            # about 25 minutes; needs ~10 GB
//
// The tree (two copies: one for ckpt, one for the shadow repository) is
// generated under the scratch directory and removed at the end. Other
// figures join the run by registering in an init function of their own
// file (registerScaleFigure); they run with the daemon serving the
// imported store, after the built-in ones.

// scaleFigure is one figure of the large-tree run.
type scaleFigure struct {
	name string
	run  func(s *scaleRun) error
}

var scaleFigures []scaleFigure

// registerScaleFigure adds a figure to every large-tree run.
func registerScaleFigure(name string, run func(s *scaleRun) error) {
	scaleFigures = append(scaleFigures, scaleFigure{name, run})
}

// scaleRow is one line of the large-tree report. Times are in ms.
type scaleRow struct {
	Figure    string  `json:"figure"`
	Ckpt      float64 `json:"ckpt_ms"`
	CkptCPU   float64 `json:"ckpt_cpu_ms,omitempty"`
	Git       float64 `json:"git_ms,omitempty"`
	GitCPU    float64 `json:"git_cpu_ms,omitempty"`
	GitName   string  `json:"git,omitempty"`
	Floor     float64 `json:"floor_ms,omitempty"`
	FloorCPU  float64 `json:"floor_cpu_ms,omitempty"`
	FloorName string  `json:"floor,omitempty"`
	Note      string  `json:"note,omitempty"`
}

// scaleRun is the state of one large-tree run, for the figures.
type scaleRun struct {
	b      *bench
	name   string
	dir    string  // scratch directory of the run
	c      *client // ckpt on the ckpt copy, state dir s.c.state
	g      *shadow // the shadow repository on the git copy
	files  []string
	d      *daemon // ckptd serving c's store, while the figures run
	floors map[string]floorResult
	rows   []scaleRow
	mem    []string // memory lines
	notes  []string
}

// Floor names, as the report prints them.
const (
	floorWalk  = "walk + lstat"
	floorRead  = "read + xxhash"
	floorEmpty = "empty binary"
)

// row adds a line to the report, with the named floor's median.
func (s *scaleRun) row(r scaleRow) {
	if f, ok := s.floors[r.FloorName]; ok && r.Floor == 0 {
		r.Floor, r.FloorCPU = ms(f.t.wall), ms(f.t.cpu)
	}
	s.rows = append(s.rows, r)
	fmt.Fprintf(os.Stderr, "  %s: ckpt %.1f ms, git %.1f ms, %s %.1f ms\n", r.Figure, r.Ckpt, r.Git, r.FloorName, r.Floor)
}

func (s *scaleRun) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.notes = append(s.notes, msg)
	fmt.Fprintf(os.Stderr, "  note: %s\n", msg)
}

// parseSize reads -size: 200k, 1m, or a number of files.
func parseSize(v string) (int, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	mult := 1
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1000, strings.TrimSuffix(v, "k")
	case strings.HasSuffix(v, "m"):
		mult, v = 1000000, strings.TrimSuffix(v, "m")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad -size %q (200k, 1m, or a number of files)", v)
	}
	return n * mult, nil
}

// scale is the -size mode.
func (b *bench) scale(n int) error {
	s := &scaleRun{b: b, name: sizeName(n), floors: map[string]floorResult{}}
	if n >= 1000000 && n%1000000 == 0 {
		s.name = fmt.Sprintf("%dm", n/1000000)
	}
	s.dir = filepath.Join(b.work, "scale-"+s.name)
	os.RemoveAll(s.dir)
	defer func() {
		if !b.o.keep {
			os.RemoveAll(s.dir)
		}
	}()
	t0 := time.Now()
	load0 := loadavg()
	if err := s.prepare(n); err != nil {
		return err
	}
	if err := s.measureFloors(); err != nil {
		return err
	}
	if err := s.imports(); err != nil {
		return err
	}
	if err := s.steady(); err != nil {
		return err
	}
	md := s.markdown(time.Since(t0), load0)
	fmt.Println(md)
	if b.o.md != "" && !b.o.quick {
		if err := writeBetween(b.o.md, "<!-- bench:scale-"+s.name+":begin -->", "<!-- bench:scale-"+s.name+":end -->", md); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", b.o.md)
	}
	if b.o.jsonOut != "" && !b.o.quick {
		raw, _ := json.MarshalIndent(map[string]any{"name": s.name, "rows": s.rows, "memory": s.mem, "notes": s.notes}, "", "  ")
		out := strings.TrimSuffix(b.o.jsonOut, ".json") + "-scale-" + s.name + ".json"
		if err := os.WriteFile(out, append(raw, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// prepare generates the tree and its copy for git.
func (s *scaleRun) prepare(n int) error {
	wc, wg := filepath.Join(s.dir, "ws-ckpt"), filepath.Join(s.dir, "ws-git")
	if err := os.MkdirAll(wc, 0o755); err != nil {
		return err
	}
	s.b.logf("scale %s: generating %d files", s.name, n)
	t := time.Now()
	if _, err := genTree(wc, n); err != nil {
		return err
	}
	s.b.logf("scale %s: generated in %s; copying", s.name, time.Since(t).Round(time.Second))
	if err := copyTree(s.b.ctx, wc, wg); err != nil {
		return err
	}
	s.c = newClient(s.b.ctx, s.b.work, s.b.ckpt, wc, filepath.Join(s.dir, "state"))
	s.g = newShadow(s.b.ctx, s.b.work, filepath.Join(s.dir, "shadow.git"), wg)
	return nil
}

// measureFloors measures the three floors on the ckpt copy (warm, as every
// figure after it runs warm).
func (s *scaleRun) measureFloors() error {
	s.b.logf("scale %s: floors", s.name)
	bin, err := s.b.emptyBinary(s.dir)
	if err != nil {
		return fmt.Errorf("build the empty binary: %w", err)
	}
	var starts []float64
	for range 30 {
		d, _, err := run(s.b.ctx, s.dir, baseEnv(s.b.work), bin)
		if err != nil {
			return err
		}
		starts = append(starts, ms(d.wall))
	}
	s.floors[floorEmpty] = floorResult{t: timing{wall: time.Duration(median(starts) * float64(time.Millisecond))}}
	for _, f := range []struct {
		name string
		read bool
	}{{floorWalk, false}, {floorRead, true}} {
		var best floorResult
		var walls []float64
		for i := range 3 {
			r, err := walkFloor(s.b.ctx, s.c.tree, f.read)
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			walls = append(walls, ms(r.t.wall))
			if i == 0 || r.t.wall < best.t.wall {
				best = r
			}
		}
		// The median of three, with the CPU time and counts of the fastest.
		best.t.wall = time.Duration(median(walls) * float64(time.Millisecond))
		s.floors[f.name] = best
	}
	return nil
}

// imports measures the first import: embedded, through the daemon (until
// it is done, and until a first status answers), and git's first commit.
func (s *scaleRun) imports() error {
	s.b.logf("scale %s: import", s.name)
	runs := s.b.o.importRuns
	var emb, embCPU, dmn, dmnCPU, first, gitT, gitCPU []float64
	var embRSS, dmnHWM int64
	for i := range runs {
		os.RemoveAll(s.c.state)
		d, st, err := s.c.status()
		if err != nil {
			return fmt.Errorf("embedded import: %w", err)
		}
		emb, embCPU = append(emb, ms(d.wall)), append(embCPU, ms(d.cpu))
		embRSS = max(embRSS, d.maxRSS)
		if st.Files == 0 {
			s.note("the embedded import captured no file")
		}
		if s.b.ckptd != "" {
			dc := newClient(s.b.ctx, s.b.work, s.b.ckpt, s.c.tree, filepath.Join(s.dir, fmt.Sprintf("state-daemon-%d", i)))
			took, answered, cpu, hwm, err := daemonImport(s, dc)
			if err != nil {
				s.note("daemon import: %v", err)
			} else {
				dmn, dmnCPU, first = append(dmn, ms(took)), append(dmnCPU, ms(cpu)), append(first, ms(answered))
				dmnHWM = max(dmnHWM, hwm)
			}
			os.RemoveAll(dc.state)
		}
		gd, err := s.g.importRepo()
		if err != nil {
			return fmt.Errorf("git import: %w", err)
		}
		gitT, gitCPU = append(gitT, ms(gd.wall)), append(gitCPU, ms(gd.cpu))
	}
	s.row(scaleRow{Figure: "first import, embedded (`ckpt status`, fresh state)", Ckpt: median(emb), CkptCPU: median(embCPU),
		Git: median(gitT), GitCPU: median(gitCPU), GitName: "init + add -A + commit", FloorName: floorRead})
	if len(dmn) > 0 {
		s.row(scaleRow{Figure: "first import, daemon (`ckptd watch` until the import is done)", Ckpt: median(dmn), CkptCPU: median(dmnCPU),
			Git: median(gitT), GitCPU: median(gitCPU), GitName: "init + add -A + commit", FloorName: floorRead})
		s.row(scaleRow{Figure: "first `ckpt status` answered while the daemon imports (from the daemon's start)", Ckpt: median(first),
			FloorName: floorEmpty})
	}
	s.mem = append(s.mem, fmt.Sprintf("peak RSS of the embedded first import: %s", fmtBytes(embRSS)))
	if dmnHWM > 0 {
		s.mem = append(s.mem, fmt.Sprintf("daemon VmHWM at the end of its first import: %s", fmtBytes(dmnHWM)))
	}
	files, err := trackedFiles(s.g)
	if err != nil {
		return err
	}
	s.files = files
	return nil
}

// daemonImport starts ckptd on a fresh state directory and returns how
// long until its import was done, how long until a first ckpt status
// answered, the daemon's CPU time and its VmHWM.
func daemonImport(s *scaleRun, dc *client) (took, answered, cpu time.Duration, hwm int64, err error) {
	d, took, err := startDaemon(s.b.ctx, s.b.ckptd, dc, filepath.Join(s.dir, "ckptd-import.log"))
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer d.stop()
	m, _ := procMem(d.pid())
	return took, d.answered, cpuTime(d.pid()), m.HWM, nil
}

// steady measures status and checkpoint with 10 files changed, embedded
// and through the daemon, against git, then the registered figures.
func (s *scaleRun) steady() error {
	s.b.logf("scale %s: status and checkpoint", s.name)
	runs := s.b.o.runs
	m := modifyOnly(s.files, 10)
	measure := func(mode string) (st, stCPU, ck, ckCPU []float64, err error) {
		for i := range runs {
			tag := fmt.Sprintf("scale-%s-%d", mode, i)
			if err := m.apply(s.c.tree, tag); err != nil {
				return nil, nil, nil, nil, err
			}
			d, out, err := s.c.status()
			if err != nil {
				return nil, nil, nil, nil, err
			}
			if len(out.Changes) != m.count() {
				s.note("status (%s) listed %d changes, want %d", mode, len(out.Changes), m.count())
			}
			st, stCPU = append(st, ms(d.wall)), append(stCPU, ms(d.cpu))
			if err := m.apply(s.c.tree, tag+"c"); err != nil {
				return nil, nil, nil, nil, err
			}
			d, _, err = s.c.checkpoint()
			if err != nil {
				return nil, nil, nil, nil, err
			}
			ck, ckCPU = append(ck, ms(d.wall)), append(ckCPU, ms(d.cpu))
		}
		return st, stCPU, ck, ckCPU, nil
	}
	var gst, gck, gstCPU, gckCPU []float64
	for i := range runs {
		tag := fmt.Sprintf("scale-git-%d", i)
		if err := m.apply(s.g.workdir, tag); err != nil {
			return err
		}
		d, err := s.g.status()
		if err != nil {
			return err
		}
		gst, gstCPU = append(gst, ms(d.wall)), append(gstCPU, ms(d.cpu))
		if d, err = s.g.checkpoint(); err != nil {
			return err
		}
		gck, gckCPU = append(gck, ms(d.wall)), append(gckCPU, ms(d.cpu))
	}
	st, stCPU, ck, ckCPU, err := measure("embedded")
	if err != nil {
		return err
	}
	s.row(scaleRow{Figure: "status, 10 changed, embedded", Ckpt: median(st), CkptCPU: median(stCPU), Git: median(gst), GitCPU: median(gstCPU), GitName: "status --porcelain", FloorName: floorWalk})
	s.row(scaleRow{Figure: "checkpoint, 10 changed, embedded", Ckpt: median(ck), CkptCPU: median(ckCPU), Git: median(gck), GitCPU: median(gckCPU), GitName: "add -A + commit", FloorName: floorWalk})
	if s.b.ckptd == "" {
		return nil
	}
	d, took, err := startDaemon(s.b.ctx, s.b.ckptd, s.c, filepath.Join(s.dir, "ckptd.log"))
	if err != nil {
		s.note("no daemon: %v", err)
		return nil
	}
	defer d.stop()
	s.d, s.c.daemon = d, d
	defer func() { s.c.daemon = nil }()
	s.row(scaleRow{Figure: "daemon start on the imported store, until it serves", Ckpt: ms(took), FloorName: floorEmpty})
	s.settle(d)
	st, stCPU, ck, ckCPU, err = measure("daemon")
	if err != nil {
		return err
	}
	s.row(scaleRow{Figure: "status, 10 changed, daemon", Ckpt: median(st), CkptCPU: median(stCPU), Git: median(gst), GitCPU: median(gstCPU), GitName: "status --porcelain", FloorName: floorEmpty})
	s.row(scaleRow{Figure: "checkpoint, 10 changed, daemon", Ckpt: median(ck), CkptCPU: median(ckCPU), Git: median(gck), GitCPU: median(gckCPU), GitName: "add -A + commit", FloorName: floorEmpty})
	for _, f := range scaleFigures {
		s.b.logf("scale %s: %s", s.name, f.name)
		if err := f.run(s); err != nil {
			if errors.Is(err, errDaemonDied) {
				return err
			}
			s.note("%s: %v", f.name, err)
		}
	}
	m2, _ := procMem(d.pid())
	s.mem = append(s.mem, fmt.Sprintf("daemon VmHWM at the end: %s", fmtBytes(m2.HWM)))
	return nil
}

// settle waits for the daemon's background work after its start on the
// imported store (recompressing the import's fast-codec contents) and
// records it: how long, its CPU, the daemon's peak meanwhile and its
// settled RSS after. Measured while that work runs, each request's CPU
// would include the share of it that ran meanwhile.
func (s *scaleRun) settle(d *daemon) {
	sampler := sampleRSS(d.pid())
	took, cpu, quiet := waitQuiet(d, s.c.state, 30*time.Minute)
	peak, _ := sampler.stop()
	idle := settledRSS(d.pid())
	s.mem = append(s.mem,
		fmt.Sprintf("daemon RSS peak from its start on the imported store until its background work is done: %s (%s anon + %s file)", fmtBytes(peak.RSS), fmtBytes(peak.Anon), fmtBytes(peak.File)),
		fmt.Sprintf("daemon RSS settled after that work: %s (%s anon + %s file)", fmtBytes(idle.RSS), fmtBytes(idle.Anon), fmtBytes(idle.File)))
	s.row(scaleRow{Figure: "daemon's background work after start (recompressing the import), until idle", Ckpt: ms(took), CkptCPU: ms(cpu)})
	if !quiet {
		s.note("the daemon was still busy with background work when the requests were measured: their CPU includes some of it")
	}
}

// markdown is the large-tree report.
func (s *scaleRun) markdown(took time.Duration, load0 string) string {
	var b strings.Builder
	mc := machine()
	fmt.Fprintf(&b, "Command: `%s` — %s, %s in all; load average %s at the start, %s at the end.  \n",
		commandLine(s.b.o), time.Now().UTC().Format("2006-01-02 15:04 UTC"), took.Round(time.Second), load0, loadavg())
	fmt.Fprintf(&b, "Machine: %s CPUs (%s), %s RAM, %s, temp dir on %s; %s, %s. ckpt at commit %s.\n\n",
		mc["nproc"], mc["cpu"], mc["memory"], mc["kernel"], mc["filesystem"], mc["go"], mc["git"], mc["commit"])
	walk, read := s.floors[floorWalk], s.floors[floorRead]
	fmt.Fprintf(&b, "Tree: %d files and symlinks, %s read. Floors (median of 3, warm cache, %d workers): %s %s (CPU %s); %s %s (CPU %s, %.0f MB/s); start of %s %s.\n\n",
		walk.files, fmtBytes(read.bytes), floorWorkers(), floorWalk, fmtMS(ms(walk.t.wall)), fmtMS(ms(walk.t.cpu)),
		floorRead, fmtMS(ms(read.t.wall)), fmtMS(ms(read.t.cpu)), float64(read.bytes)/1e6/read.t.wall.Seconds(),
		floorEmpty, fmtMS(ms(s.floors[floorEmpty].t.wall)))
	b.WriteString("Ratios are of median wall time, then (CPU) of CPU time: user+sys of the commands and the daemon's while they ran, the harness's own for a floor. The machine is shared: CPU time is what other load disturbs least.\n\n")
	b.WriteString("| figure | ckpt, median ms (CPU) | shadow git, median ms (CPU) | ckpt / git | floor, ms (CPU) | ckpt / floor |\n|---|---|---|---|---|---|\n")
	for _, r := range s.rows {
		ck := fmtMS(r.Ckpt)
		if r.CkptCPU > 0 {
			ck += " (" + fmtMS(r.CkptCPU) + ")"
		}
		git, gr, fr, fl := "", "", "", ""
		if r.Git > 0 {
			git = fmt.Sprintf("%s: %s", r.GitName, fmtMS(r.Git))
			gr = fmtRatio(r.Ckpt / r.Git)
			if r.GitCPU > 0 && r.CkptCPU > 0 {
				git += " (" + fmtMS(r.GitCPU) + ")"
				gr += " (CPU " + fmtRatio(r.CkptCPU/r.GitCPU) + ")"
			}
		}
		if r.Floor > 0 {
			fl = fmt.Sprintf("%s: %s", r.FloorName, fmtMS(r.Floor))
			fr = fmtRatio(r.Ckpt / r.Floor)
			if r.FloorCPU > 0 && r.CkptCPU > 0 {
				fl += " (" + fmtMS(r.FloorCPU) + ")"
				fr += " (CPU " + fmtRatio(r.CkptCPU/r.FloorCPU) + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Figure, ck, git, gr, fl, fr)
	}
	b.WriteString("\n")
	for _, m := range s.mem {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	for _, n := range s.notes {
		fmt.Fprintf(&b, "- note: %s\n", n)
	}
	return b.String()
}

// writeBetween replaces what lies between begin and end in the file at
// path with md (appending both markers if absent).
func writeBetween(path, begin, end, md string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	block := begin + "\n\n" + md + "\n" + end
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i >= 0 && j > i {
		s = s[:i] + block + s[j+len(end):]
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + block + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
