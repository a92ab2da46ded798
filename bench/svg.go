package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// plot draws checkpoint latency (10 files changed) against tree size, on
// log-log axes: ckpt embedded, ckpt with the daemon, shadow git, and the
// 0.05× shadow-git target. The GOROOT copy is drawn as hollow markers.
func plot(res *results) string {
	const (
		W, H                 = 820, 470
		left, right, top, bt = 80, 250, 50, 60
	)
	type series struct {
		key, label, color string
		dash              bool
		scale             float64
	}
	ss := []series{
		{"checkpoint/10/git", "shadow git: add -A + commit", "#d62728", false, 1},
		{"checkpoint/10/ckpt", "ckpt checkpoint, embedded", "#1f77b4", false, 1},
		{"checkpoint/10/ckptd", "ckpt checkpoint, daemon", "#2ca02c", false, 1},
		{"checkpoint/10/git", "target: 0.05× shadow git", "#999999", true, 0.05},
	}
	var syn []*treeResult
	var groot *treeResult
	for _, t := range res.Trees {
		if t.Name == "goroot" {
			groot = t
		} else {
			syn = append(syn, t)
		}
	}
	sort.Slice(syn, func(i, j int) bool { return syn[i].Files < syn[j].Files })

	// Ranges.
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, t := range res.Trees {
		if t.Files <= 0 {
			continue
		}
		xmin, xmax = math.Min(xmin, float64(t.Files)), math.Max(xmax, float64(t.Files))
		for _, s := range ss {
			if v, ok := med(t, s.key); ok && v > 0 {
				v *= s.scale
				ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			}
		}
	}
	if math.IsInf(xmin, 0) || math.IsInf(ymin, 0) {
		return `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="60"><text x="10" y="30">no data</text></svg>` + "\n"
	}
	lx0, lx1 := math.Floor(math.Log10(xmin)*2)/2, math.Ceil(math.Log10(xmax)*2)/2
	if lx1 <= lx0 {
		lx0, lx1 = lx0-0.5, lx1+0.5
	}
	ly0, ly1 := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
	if ly1 <= ly0 {
		ly1 = ly0 + 1
	}
	pw, ph := float64(W-left-right), float64(H-top-bt)
	px := func(x float64) float64 { return left + (math.Log10(x)-lx0)/(lx1-lx0)*pw }
	py := func(y float64) float64 { return top + ph - (math.Log10(y)-ly0)/(ly1-ly0)*ph }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="15" font-weight="bold">Checkpoint latency vs tree size (10 files changed, median)</text>`+"\n", left)
	// Grid and ticks.
	for e := ly0; e <= ly1; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if math.Log10(v) > ly1+1e-9 {
				continue
			}
			y := py(v)
			stroke := "#eeeeee"
			if m == 1 {
				stroke = "#cccccc"
			}
			fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", left, y, W-right, y, stroke)
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#444">%s</text>`+"\n", left-6, y+4, tickMS(v))
		}
	}
	for _, x := range []float64{300, 1000, 3000, 10000, 30000, 100000, 300000} {
		lx := math.Log10(x)
		if lx < lx0-1e-9 || lx > lx1+1e-9 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd"/>`+"\n", px(x), top, px(x), H-bt)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s</text>`+"\n", px(x), H-bt+18, tickFiles(x))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">files in the workspace (log)</text>`+"\n", left+pw/2, H-bt+40)
	fmt.Fprintf(&b, `<text transform="translate(22 %.0f) rotate(-90)" text-anchor="middle">ms (log)</text>`+"\n", top+ph/2)

	// Series.
	for i, s := range ss {
		var pts []string
		for _, t := range syn {
			if v, ok := med(t, s.key); ok && v > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(float64(t.Files)), py(v*s.scale)))
			}
		}
		dash := ""
		if s.dash {
			dash = ` stroke-dasharray="6 4"`
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.color, dash)
		}
		if !s.dash {
			for _, p := range pts {
				xy := strings.Split(p, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="4" fill="%s"/>`+"\n", xy[0], xy[1], s.color)
			}
			if groot != nil {
				if v, ok := med(groot, s.key); ok && v > 0 {
					fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="9" height="9" fill="white" stroke="%s" stroke-width="2"/>`+"\n",
						px(float64(groot.Files))-4.5, py(v)-4.5, s.color)
				}
			}
		}
		// Legend.
		ly := float64(top + 10 + 22*i)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="%s" stroke-width="2"%s/>`+"\n", W-right+12, ly, W-right+34, ly, s.color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f">%s</text>`+"\n", W-right+40, ly+4, xmlEscape(s.label))
	}
	if groot != nil {
		ly := float64(top + 10 + 22*len(ss))
		fmt.Fprintf(&b, `<rect x="%d" y="%.0f" width="9" height="9" fill="white" stroke="#333" stroke-width="2"/>`+"\n", W-right+18, ly-4.5)
		fmt.Fprintf(&b, `<text x="%d" y="%.0f">GOROOT copy</text>`+"\n", W-right+40, ly+4)
	}
	if !res.Daemon || res.DaemonNote != "" {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#888">no daemon: %s</text>`+"\n", W-right+12, top+22*(len(ss)+2), xmlEscape(truncate(res.DaemonNote, 30)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#888" font-size="10">%s · %s · %s CPUs</text>`+"\n", left, H-8, xmlEscape(res.Date), xmlEscape(res.Machine["go"]), xmlEscape(res.Machine["nproc"]))
	b.WriteString("</svg>\n")
	return b.String()
}

func tickMS(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%gs", v/1000)
	case v >= 1:
		return fmt.Sprintf("%gms", v)
	}
	return fmt.Sprintf("%gms", v)
}

func tickFiles(x float64) string {
	if x >= 1000 {
		return fmt.Sprintf("%gk", x/1000)
	}
	return fmt.Sprintf("%g", x)
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
