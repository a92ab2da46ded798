package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

const (
	beginMarker = "<!-- bench:begin (written by go run ./bench; do not edit by hand) -->"
	endMarker   = "<!-- bench:end -->"
)

// report prints the markdown and writes it (and the plot) where asked.
func report(res *results, o *options) error {
	md := markdown(res)
	fmt.Println(md)
	if o.md != "" {
		if err := writeBetweenMarkers(o.md, md); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", o.md)
	}
	if o.svg != "" {
		svg, err := latencyPlot(res)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		if err := os.WriteFile(o.svg, svg, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", o.svg)
	}
	return nil
}

func writeBetweenMarkers(path, md string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	s := string(old)
	block := beginMarker + "\n\n" + md + "\n" + endMarker
	i := strings.Index(s, beginMarker)
	j := strings.Index(s, endMarker)
	if i >= 0 && j > i {
		s = s[:i] + block + s[j+len(endMarker):]
	} else {
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		s += "\n" + block + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// target is one goal of the issue, checked on every tree.
type target struct {
	name  string
	goal  string
	max   float64 // ratio (or MB for rss) at most
	cell  func(t *treeResult) (val float64, text string, ok bool)
	scope func(t *treeResult, all []*treeResult) bool // which trees decide met/missed
}

func med(t *treeResult, key string) (float64, bool) {
	xs := t.Samples[key]
	if len(xs) == 0 {
		return 0, false
	}
	return median(xs), true
}

func ratioCell(ck, gt string) func(t *treeResult) (float64, string, bool) {
	return func(t *treeResult) (float64, string, bool) {
		a, ok1 := med(t, ck)
		b, ok2 := med(t, gt)
		if !ok1 || !ok2 || b == 0 {
			return 0, "", false
		}
		r := a / b
		text := fmt.Sprintf("%s (%s / %s)", fmtRatio(r), fmtMS(a), fmtMS(b))
		if ca, ok1 := med(t, ck+"#cpu"); ok1 {
			if cb, ok2 := med(t, gt+"#cpu"); ok2 && cb > 0 {
				text += fmt.Sprintf("; CPU %s", fmtRatio(ca/cb))
			}
		}
		return r, text, true
	}
}

func sizeCell(st, gt string) func(t *treeResult) (float64, string, bool) {
	return func(t *treeResult) (float64, string, bool) {
		a, b := t.Sizes[st], t.Sizes[gt]
		if a == 0 || b == 0 {
			return 0, "", false
		}
		r := float64(a) / float64(b)
		return r, fmt.Sprintf("%s (%s / %s)", fmtRatio(r), fmtBytes(a), fmtBytes(b)), true
	}
}

func allTrees(*treeResult, []*treeResult) bool { return true }

// largest: the synthetic tree with the most files decides.
func largest(t *treeResult, all []*treeResult) bool {
	var best *treeResult
	for _, x := range all {
		if x.Name != "goroot" && (best == nil || x.Files > best.Files) {
			best = x
		}
	}
	return best == t
}

func synthetic(t *treeResult, _ []*treeResult) bool { return t.Name != "goroot" }

// smallestSynthetic is the reference for flatness.
func smallestSynthetic(all []*treeResult) *treeResult {
	var best *treeResult
	for _, x := range all {
		if x.Name != "goroot" && (best == nil || x.Files < best.Files) {
			best = x
		}
	}
	return best
}

func targets(all []*treeResult) []target {
	ts := []target{}
	for _, n := range checkpointChanges {
		ts = append(ts, target{
			name: fmt.Sprintf("checkpoint with daemon, %d changed / warm shadow commit", n), goal: "≤ 0.05×", max: 0.05,
			cell: ratioCell(fmt.Sprintf("checkpoint/%d/ckptd", n), fmt.Sprintf("checkpoint/%d/git", n)), scope: allTrees,
		})
	}
	ref := smallestSynthetic(all)
	ts = append(ts, target{
		name: "checkpoint with daemon (10 changed) flat across tree sizes", goal: "±20% of the smallest tree", max: 0.2,
		cell: func(t *treeResult) (float64, string, bool) {
			if ref == nil {
				return 0, "", false
			}
			a, ok1 := med(t, "checkpoint/10/ckptd")
			b, ok2 := med(ref, "checkpoint/10/ckptd")
			if !ok1 || !ok2 || b == 0 {
				return 0, "", false
			}
			d := a/b - 1
			return math.Abs(d), fmt.Sprintf("%s (%+.0f%%)", fmtMS(a), 100*d), true
		},
		scope: synthetic,
	})
	ts = append(ts,
		target{name: "first import, embedded (`ckpt status`, fresh state) / first shadow commit", goal: "≤ 0.2×", max: 0.2,
			cell: ratioCell("import/ckpt", "import/git"), scope: allTrees},
		target{name: "first import, daemon (`ckptd watch` until it serves) / first shadow commit", goal: "≤ 0.2×", max: 0.2,
			cell: ratioCell("import/ckptd", "import/git"), scope: allTrees},
		target{name: "status, embedded / `git status --porcelain`", goal: "≤ 1.5×", max: 1.5,
			cell: ratioCell("status/ckpt", "status/git"), scope: allTrees},
		target{name: "status, daemon / `git status --porcelain`", goal: "≤ 0.2×", max: 0.2,
			cell: ratioCell("status/ckptd", "status/git"), scope: allTrees},
		target{name: "restore 10 files, daemon / `git reset --hard && git clean -fd`", goal: "≤ 0.1×", max: 0.1,
			cell: ratioCell("restore/10/ckptd", "restore/10/git"), scope: allTrees},
		target{name: "restore 10 files, embedded / `git reset --hard && git clean -fd`", goal: "≤ 0.1×", max: 0.1,
			cell: ratioCell("restore/10/ckpt", "restore/10/git"), scope: allTrees},
		target{name: "store after import / shadow .git after `git gc`", goal: "≤ 1.0×", max: 1.0,
			cell: sizeCell("store_import", "git_import_gc"), scope: allTrees},
		target{name: "store after the whole series / shadow .git after `git gc`", goal: "≤ 1.0×", max: 1.0,
			cell: sizeCell("store_end", "git_end_gc"), scope: allTrees},
		target{name: "daemon RSS, max of settled after start and peak during a write burst (MB)", goal: "≤ 100 MB at the largest tree", max: 100,
			cell: func(t *treeResult) (float64, string, bool) {
				if !t.Daemon {
					return 0, "", false
				}
				v := max(t.RSS["idle"], t.RSS["burst_peak"])
				mb := float64(v) / 1e6
				return mb, fmt.Sprintf("%.0f MB", mb), true
			}, scope: largest},
	)
	return ts
}

func markdown(res *results) string {
	var b strings.Builder
	m := res.Machine
	fmt.Fprintf(&b, "Command: `%s` — %s, %d run(s) per measurement, %.0f s in all.  \n", res.Command, res.Date, res.Runs, res.Seconds)
	fmt.Fprintf(&b, "Machine: %s CPUs (%s), %s RAM, %s, %s on %s; %s, %s.",
		m["nproc"], m["cpu"], m["memory"], m["kernel"], "temp dir", m["filesystem"], m["go"], m["git"])
	if c := m["commit"]; c != "" {
		fmt.Fprintf(&b, " ckpt at commit %s.", c)
	}
	b.WriteString("\n\n")
	if res.DaemonNote != "" {
		fmt.Fprintf(&b, "Daemon rows: n/a (no daemon): %s.\n\n", res.DaemonNote)
	}

	// Targets.
	b.WriteString("### Targets\n\n")
	b.WriteString("Ratios are ckpt / shadow git of median wall time (the medians in ms in parentheses), then the ratio of median CPU time (user+sys, the daemon's included): the machine is shared, and CPU time is what other load disturbs least. Lower is better; the result is decided on wall time.\n\n")
	b.WriteString("| target | goal |")
	for _, t := range res.Trees {
		fmt.Fprintf(&b, " %s |", treeLabel(t))
	}
	b.WriteString(" result |\n|---|---|")
	for range res.Trees {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, tg := range targets(res.Trees) {
		fmt.Fprintf(&b, "| %s | %s |", tg.name, tg.goal)
		decided, met := 0, true
		for _, t := range res.Trees {
			v, text, ok := tg.cell(t)
			if !ok {
				if strings.Contains(tg.name, "daemon") && !t.Daemon {
					text = "n/a (no daemon)"
				} else if tg.scope(t, res.Trees) {
					text = "n/a"
				} else {
					text = "—"
				}
			} else if tg.scope(t, res.Trees) {
				decided++
				if v > tg.max {
					met = false
					text = "**" + text + "**"
				}
			}
			fmt.Fprintf(&b, " %s |", text)
		}
		switch {
		case decided == 0 && strings.Contains(tg.name, "daemon"):
			b.WriteString(" n/a (no daemon) |\n")
		case decided == 0:
			b.WriteString(" n/a |\n")
		case met:
			b.WriteString(" met |\n")
		default:
			b.WriteString(" **missed** |\n")
		}
	}
	b.WriteString("\nA bold cell misses its goal.\n")

	// Everything, per tree.
	for _, t := range res.Trees {
		fmt.Fprintf(&b, "\n### %s: %d files (git tracks %d), %s on disk\n\n", treeLabel(t), t.Files, t.GitFiles, fmtBytes(t.Bytes))
		if len(t.Load) > 0 {
			fmt.Fprintf(&b, "Measured in %.0f s; load average %s at the start, %s at the end.\n\n", t.Seconds, t.Load[0], t.Load[len(t.Load)-1])
		}
		table := func(suffix string) {
			if suffix == "" {
				b.WriteString("| wall time, median ms | ckpt embedded | ckpt + daemon | shadow git | embedded / git | daemon / git |\n|---|---|---|---|---|---|\n")
			} else {
				b.WriteString("\n| CPU time (user+sys of the commands, plus the daemon's while they ran), median ms | ckpt embedded | ckpt + daemon | shadow git | embedded / git | daemon / git |\n|---|---|---|---|---|---|\n")
			}
			row := func(name, ck, dm, gt string) {
				a, okA := med(t, ck+suffix)
				d, okD := med(t, dm+suffix)
				g, okG := med(t, gt+suffix)
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", name, opt(okA, fmtMS(a)), optD(t, okD, fmtMS(d)), opt(okG, fmtMS(g)),
					opt(okA && okG && g > 0, fmtRatio(a/g)), optD(t, okD && okG && g > 0, fmtRatio(d/g)))
			}
			row("first import / init+add+commit", "import/ckpt", "import/ckptd", "import/git")
			for _, n := range checkpointChanges {
				row(fmt.Sprintf("checkpoint, %d files changed / add+commit", n), fmt.Sprintf("checkpoint/%d/ckpt", n), fmt.Sprintf("checkpoint/%d/ckptd", n), fmt.Sprintf("checkpoint/%d/git", n))
			}
			row("checkpoint, 10 files changed 300 ms before (daemon settled) / add+commit", "", "checkpoint/10-settled/ckptd", "checkpoint/10/git")
			for _, n := range restoreChanges {
				row(fmt.Sprintf("restore --exact, %d paths / reset --hard + clean -fd", n), fmt.Sprintf("restore/%d/ckpt", n), fmt.Sprintf("restore/%d/ckptd", n), fmt.Sprintf("restore/%d/git", n))
			}
			row("status, 10 files changed / status --porcelain", "status/ckpt", "status/ckptd", "status/git")
			row("daemon start on the imported store (until it serves)", "", "start/ckptd", "")
			row("daemon's background work after start (recompressing the import), until idle", "", "start/background", "")
			row("`git gc`", "", "", "gc/git")
		}
		table("")
		b.WriteString("\n| sizes, memory, latency | ckpt | ckpt + daemon | shadow git | ckpt / git | |\n|---|---|---|---|---|---|\n")
		fmt.Fprintf(&b, "| store after import / .git before → after gc | %s | | %s → %s | %s | |\n",
			fmtBytes(t.Sizes["store_import"]), fmtBytes(t.Sizes["git_import"]), fmtBytes(t.Sizes["git_import_gc"]), sizeRatio(t.Sizes["store_import"], t.Sizes["git_import_gc"]))
		fmt.Fprintf(&b, "| store after the series / .git before → after gc | %s | | %s → %s | %s | |\n",
			fmtBytes(t.Sizes["store_end"]), fmtBytes(t.Sizes["git_end"]), fmtBytes(t.Sizes["git_end_gc"]), sizeRatio(t.Sizes["store_end"], t.Sizes["git_end_gc"]))
		if v := t.RSS["import_embedded_maxrss"]; v > 0 {
			fmt.Fprintf(&b, "| peak RSS of the embedded first import (`ckpt status`) | %.0f MB | | | | |\n", float64(v)/1e6)
		}
		if t.Daemon {
			mb := func(k string) string { return fmt.Sprintf("%.0f MB", float64(t.RSS[k])/1e6) }
			split := func(k string) string {
				return fmt.Sprintf("%s (%s anon + %s file)", mb(k), mb(k+"_anon"), mb(k+"_file"))
			}
			fmt.Fprintf(&b, "| daemon RSS after start and its background work, settled | | %s | | | |\n", split("idle"))
			fmt.Fprintf(&b, "| daemon RSS, peak during a burst of %d new files | | %s | | | |\n", t.BurstFiles, split("burst_peak"))
			fmt.Fprintf(&b, "| daemon RSS, peak during the measured series (at: %s) / VmHWM at the end | | %s / %s | | | |\n", t.SeriesPeakAt, split("series_peak"), mb("hwm"))
			fmt.Fprintf(&b, "| daemon VmHWM at the end of a first import (`ckptd watch`) | | %s | | | |\n", mb("import_hwm"))
			if w, ok := med(t, "burst/write"); ok {
				c, _ := med(t, "burst/captured")
				fmt.Fprintf(&b, "| burst: all files written / all captured (status synced) | | %s / %s | | | |\n", fmtMS(w), fmtMS(c))
			}
			if l := t.Latency; l != nil {
				fmt.Fprintf(&b, "| write → captured (%s), p50 / p99 / max, %d writes, %d missed | | %s / %s / %s | | | |\n",
					l.Mode, len(l.Samples)+l.Missed, l.Missed, fmtMS(quantile(l.Samples, 0.5)), fmtMS(quantile(l.Samples, 0.99)), fmtMS(quantile(l.Samples, 1)))
			}
		} else {
			b.WriteString("| daemon RSS, write → captured latency | | n/a (no daemon) | | | |\n")
		}
		table("#cpu")
		for _, n := range t.Notes {
			fmt.Fprintf(&b, "\nNote: %s\n", n)
		}
	}
	if len(res.Floor) > 0 {
		keys := make([]string, 0, len(res.Floor))
		for k := range res.Floor {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\nProcess floor (start a binary that does no work):")
		for _, k := range keys {
			fmt.Fprintf(&b, " `%s` %s ms;", k, fmtMS(res.Floor[k]))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func treeLabel(t *treeResult) string {
	if t.Name == "goroot" {
		return "GOROOT copy"
	}
	return t.Name
}

func opt(ok bool, s string) string {
	if !ok {
		return ""
	}
	return s
}

func optD(t *treeResult, ok bool, s string) string {
	if !t.Daemon {
		return "n/a"
	}
	return opt(ok, s)
}

func fmtMS(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func fmtRatio(r float64) string {
	switch {
	case r < 0.1:
		return fmt.Sprintf("%.3f×", r)
	case r < 10:
		return fmt.Sprintf("%.2f×", r)
	}
	return fmt.Sprintf("%.0f×", r)
}

func fmtBytes(n int64) string {
	switch {
	case n == 0:
		return "?"
	case n < 10<<20:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}

func sizeRatio(a, b int64) string {
	if a == 0 || b == 0 {
		return ""
	}
	return fmtRatio(float64(a) / float64(b))
}
