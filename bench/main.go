// Command bench measures ckpt against shadow-git checkpointing, side by
// side, on the same trees, in one run:
//
//	go run ./bench            # full: a GOROOT copy and 1k/10k/40k synthetic trees, 5 runs each
//	go run ./bench --quick    # CI smoke: 1k tree, 1 run, no GOROOT (under a minute)
//
// The shadow-git approach is a separate GIT_DIR (outside the workspace)
// whose work tree is the workspace: a checkpoint is `git add -A && git
// commit`, a restore `git reset --hard && git clean -fd`, status `git
// status --porcelain`. ckpt runs embedded (no daemon) and, when ckptd is
// available, with the daemon.
//
// The full run prints a markdown table, writes it into BENCHMARKS.md between
// its markers and draws bench/checkpoint-latency.svg. See BENCHMARKS.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type options struct {
	quick      bool
	runs       int
	importRuns int
	sizes      string
	goroot     bool
	md         string
	svg        string
	jsonOut    string
	work       string
	keep       bool
	ckptBin    string
	ckptdBin   string
	noDaemon   bool
	latWrites  int
	burst      int
	render     string
	profile    string
	profileOp  string
	startup    int // -startup: runs of the start-up measure
	memProfile string
	size       string // -size: the large-tree run (scale.go)
	blockProf  string // -blockprofile, with -cpuprofile
	mutexProf  string // -mutexprofile, with -cpuprofile
}

func main() {
	var o options
	flag.BoolVar(&o.quick, "quick", false, "CI smoke: 1k tree only, 1 run, no GOROOT copy, no files written unless -md/-svg/-json are given")
	flag.IntVar(&o.runs, "runs", 5, "runs of each measurement, per approach (medians are reported)")
	flag.IntVar(&o.importRuns, "import-runs", 2, "runs of the first-import measurements (the slowest ones), at most -runs")
	flag.StringVar(&o.sizes, "sizes", "1000,10000,40000", "synthetic tree sizes (files)")
	flag.BoolVar(&o.goroot, "goroot", true, "also measure a copy of $(go env GOROOT)")
	flag.StringVar(&o.md, "md", "", "markdown file to write the results into, between its markers (default: BENCHMARKS.md; none with -quick)")
	flag.StringVar(&o.svg, "svg", "", "SVG plot of checkpoint latency vs tree size (default: bench/checkpoint-latency.svg; none with -quick)")
	flag.StringVar(&o.jsonOut, "json", "", "raw results as JSON (default: bench/results.json; none with -quick)")
	flag.StringVar(&o.work, "work", "", "scratch directory (default: a new temp dir, removed at the end)")
	flag.BoolVar(&o.keep, "keep", false, "keep the scratch directory")
	flag.StringVar(&o.ckptBin, "ckpt", "", "ckpt binary (default: go build ./cmd/ckpt)")
	flag.StringVar(&o.ckptdBin, "ckptd", "", "ckptd binary (default: go build ./cmd/ckptd; daemon rows are n/a if it does not build)")
	flag.BoolVar(&o.noDaemon, "no-daemon", false, "skip every daemon measurement")
	flag.IntVar(&o.latWrites, "latency-writes", 200, "writes for the write-to-captured latency")
	flag.IntVar(&o.burst, "burst", 2000, "files written in the daemon's write burst (RSS)")
	flag.StringVar(&o.render, "render", "", "only re-render the report from this results JSON")
	flag.StringVar(&o.profile, "cpuprofile", "", "profile mode: run one ckpt operation in-process on a synthetic tree (-sizes, first size) and write a CPU profile here")
	flag.StringVar(&o.memProfile, "memprofile", "", "with -cpuprofile: also write a heap profile (allocs; go tool pprof -sample_index=inuse_space or alloc_space) here, after the operation")
	flag.StringVar(&o.profileOp, "profile-op", "import", "operation for -cpuprofile: import, open-status (open the store, status, close: an embedded ckpt status), status, checkpoint, restore")
	flag.IntVar(&o.startup, "startup", 0, "start-up mode: time `ckpt status` against a running daemon this many times (with ckpt help and git --version), print median and p99, write nothing")
	flag.StringVar(&o.blockProf, "blockprofile", "", "with -cpuprofile: also write a blocking profile (every wait over 10 µs) here")
	flag.StringVar(&o.mutexProf, "mutexprofile", "", "with -cpuprofile: also write a mutex contention profile here")
	flag.StringVar(&o.size, "size", "", "large-tree run instead of the usual one: 200k, 1m (or a file count); a generated tree, its physical floor, import, status and checkpoint against shadow git (see scale.go)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer stopAllDaemons()
	if err := mainErr(ctx, &o); err != nil {
		stopAllDaemons()
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func mainErr(ctx context.Context, o *options) error {
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	if o.quick {
		o.runs, o.importRuns, o.sizes, o.goroot = 1, 1, "1000", false
		o.latWrites = min(o.latWrites, 50)
		o.burst = min(o.burst, 500)
	} else {
		if o.md == "" {
			o.md = filepath.Join(repo, "BENCHMARKS.md")
		}
		if o.svg == "" {
			o.svg = filepath.Join(repo, "bench", "checkpoint-latency.svg")
		}
		if o.jsonOut == "" {
			o.jsonOut = filepath.Join(repo, "bench", "results.json")
		}
	}
	if *storageUsageDir != "" {
		return printStoreUsage(os.Stdout, *storageUsageDir)
	}
	if o.render != "" {
		var res results
		b, err := os.ReadFile(o.render)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &res); err != nil {
			return err
		}
		return report(&res, o)
	}
	o.importRuns = max(1, min(o.importRuns, o.runs))
	var sizes []int
	for _, s := range strings.Split(o.sizes, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return fmt.Errorf("bad -sizes entry %q", s)
		}
		sizes = append(sizes, n)
	}

	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "ckpt-bench-"); err != nil {
			return err
		}
		if !o.keep {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if o.profile != "" {
		return profileOp(ctx, o, work, sizes[0])
	}

	b := &bench{ctx: ctx, o: o, work: work}
	if err := b.build(repo); err != nil {
		return err
	}
	if o.startup > 0 {
		return b.startupRuns(o.startup)
	}
	if *restoreBench {
		return b.restoreRuns()
	}
	if o.size != "" {
		n, err := parseSize(o.size)
		if err != nil {
			return err
		}
		return b.scale(n)
	}
	if *storageMode {
		return b.storageRuns()
	}
	res := &results{Machine: machine(), Command: commandLine(o), Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Runs: o.runs}
	res.Floor = b.floor()

	var specs []treeSpec
	if o.goroot {
		gr, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		specs = append(specs, treeSpec{Name: "goroot", Copy: strings.TrimSpace(string(gr))})
	}
	for _, n := range sizes {
		specs = append(specs, treeSpec{Name: sizeName(n), Files: n})
	}
	start := time.Now()
	for _, spec := range specs {
		t0 := time.Now()
		tr, err := b.measureTree(spec)
		if err != nil {
			return fmt.Errorf("tree %s: %w", spec.Name, err)
		}
		tr.Seconds = time.Since(t0).Seconds()
		res.Trees = append(res.Trees, tr)
		fmt.Fprintf(os.Stderr, "tree %s done in %.0fs\n", spec.Name, tr.Seconds)
		if !o.keep {
			os.RemoveAll(filepath.Join(work, spec.Name))
		}
	}
	res.Seconds = time.Since(start).Seconds()
	res.Daemon, res.DaemonNote = false, b.daemonNote
	for _, t := range res.Trees {
		res.Daemon = res.Daemon || t.Daemon
	}
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(o.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return report(res, o)
}

func sizeName(n int) string {
	if n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run the harness inside the ckpt module (go run ./bench)")
	}
	return filepath.Dir(mod), nil
}

// bench is one harness run.
type bench struct {
	ctx        context.Context
	o          *options
	work       string
	ckpt       string
	ckptd      string
	daemonNote string
}

// build compiles ckpt and ckptd into the scratch directory (unless given).
func (b *bench) build(repo string) error {
	bin := filepath.Join(b.work, "bin")
	os.MkdirAll(bin, 0o755)
	os.MkdirAll(filepath.Join(b.work, "xdg-config"), 0o755)
	// Built as the README builds them: static (CGO_ENABLED=0), which
	// spares every command the dynamic loader (~0.7 ms).
	env := append(os.Environ(), "CGO_ENABLED=0")
	b.ckpt = b.o.ckptBin
	if b.ckpt == "" {
		b.ckpt = filepath.Join(bin, "ckpt")
		if _, _, err := run(b.ctx, repo, env, "go", "build", "-o", b.ckpt, "./cmd/ckpt"); err != nil {
			return err
		}
	}
	// Not named ckptd: a `pkill ckptd` elsewhere on the machine (seen
	// while developing this harness) must not end the measured daemon.
	daemonBin := filepath.Join(bin, "bench-ckpt-daemon")
	built := false
	if b.o.ckptdBin == "" || b.o.ckptBin == "" {
		if _, _, err := run(b.ctx, repo, env, "go", "build", "-o", daemonBin, "./cmd/ckptd"); err != nil {
			b.daemonNote = "ckptd does not build yet"
			fmt.Fprintf(os.Stderr, "no daemon: %v\n", firstLine(err.Error()))
		} else {
			built = true
		}
	}
	if built && b.o.ckptBin == "" {
		// ckpt runs its embedded commands in the ckptd beside it.
		os.Remove(filepath.Join(bin, "ckptd"))
		if err := os.Link(daemonBin, filepath.Join(bin, "ckptd")); err != nil {
			return err
		}
	}
	if b.o.noDaemon {
		b.daemonNote = "skipped (-no-daemon)"
		return nil
	}
	b.ckptd = b.o.ckptdBin
	if b.ckptd == "" && built {
		b.ckptd = daemonBin
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// floor is what starting each tool costs with no work to do.
func (b *bench) floor() map[string]float64 {
	f := map[string]float64{}
	var ck, gt []float64
	for i := 0; i < max(b.o.runs, 5); i++ {
		d, _, err := run(b.ctx, b.work, baseEnv(b.work), b.ckpt, "help")
		if err == nil {
			ck = append(ck, ms(d.wall))
		}
		d, _, err = run(b.ctx, b.work, baseEnv(b.work), "git", "--version")
		if err == nil {
			gt = append(gt, ms(d.wall))
		}
	}
	f["ckpt help"], f["git --version"] = median(ck), median(gt)
	return f
}

func commandLine(o *options) string {
	args := []string{"go", "run", "./bench"}
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "md", "svg", "json", "work", "keep", "ckpt", "ckptd":
			return
		}
		if f.Value.String() == "true" {
			args = append(args, "-"+f.Name)
		} else {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return strings.Join(args, " ")
}

// machine describes where the numbers come from.
func machine() map[string]string {
	m := map[string]string{"nproc": strconv.Itoa(runtime.NumCPU()), "go": runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m["cpu"] = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		m["git"] = strings.TrimSpace(string(out))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		if f := strings.Fields(line); len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			m["memory"] = fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		m["commit"] = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			m["commit"] += " + uncommitted changes"
		}
	}
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		m["kernel"] = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("df", "-T", os.TempDir()).Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if f := strings.Fields(lines[len(lines)-1]); len(f) > 1 {
			m["filesystem"] = f[1]
		}
	}
	return m
}
