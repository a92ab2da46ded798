package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// latencySeries is one line of the checkpoint-latency plot: the medians of
// key, times scale.
type latencySeries struct {
	key, label string
	color      color.RGBA
	dash       bool
	scale      float64
}

var latencyLines = []latencySeries{
	{"checkpoint/10/git", "shadow git: add -A + commit", rgb(0xd62728), false, 1},
	{"checkpoint/10/ckpt", "ckpt checkpoint, embedded", rgb(0x1f77b4), false, 1},
	{"checkpoint/10/ckptd", "ckpt checkpoint, daemon", rgb(0x2ca02c), false, 1},
	{"checkpoint/10/git", "target: 0.05× shadow git", rgb(0x999999), true, 0.05},
}

// latencyPlot draws checkpoint latency (10 files changed) against tree
// size, on log-log axes: ckpt embedded, ckpt with the daemon, shadow git,
// and the 0.05× shadow-git target, as an SVG. The GOROOT copy is drawn as
// hollow squares.
func latencyPlot(res *results) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "Checkpoint latency vs tree size (10 files changed, median)"
	p.X.Label.Text = "files in the workspace (log)\n" + fmt.Sprintf("%s · %s · %s CPUs", res.Date, res.Machine["go"], res.Machine["nproc"])
	if !res.Daemon || res.DaemonNote != "" {
		p.X.Label.Text += " · no daemon: " + truncate(res.DaemonNote, 30)
	}
	p.Y.Label.Text = "ms (log)"
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
	if !setLogAxes(p, res.Trees) {
		p.Title.Text += ": no data"
		return render(p)
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	for _, s := range latencyLines {
		var pts plotter.XYs
		for _, t := range syn {
			if v, ok := med(t, s.key); ok && v > 0 {
				pts = append(pts, plotter.XY{X: float64(t.Files), Y: v * s.scale})
			}
		}
		if err := addSeries(p, s, pts, groot); err != nil {
			return nil, err
		}
	}
	if groot != nil {
		legend, err := plotter.NewScatter(plotter.XYs{})
		if err != nil {
			return nil, err
		}
		legend.GlyphStyle = hollowSquare(color.RGBA{0x33, 0x33, 0x33, 0xff})
		p.Legend.Add("GOROOT copy", legend)
	}
	return render(p)
}

// setLogAxes sets log-log axes over the trees' sizes and latencies, with
// ticks at 1-2-5 ms and round file counts; false when there is nothing to
// plot.
func setLogAxes(p *plot.Plot, trees []*treeResult) bool {
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, t := range trees {
		if t.Files <= 0 {
			continue
		}
		xmin, xmax = math.Min(xmin, float64(t.Files)), math.Max(xmax, float64(t.Files))
		for _, s := range latencyLines {
			if v, ok := med(t, s.key); ok && v > 0 {
				v *= s.scale
				ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			}
		}
	}
	if math.IsInf(xmin, 0) || math.IsInf(ymin, 0) {
		return false
	}
	lx0, lx1 := math.Floor(math.Log10(xmin)*2)/2, math.Ceil(math.Log10(xmax)*2)/2
	if lx1 <= lx0 {
		lx0, lx1 = lx0-0.5, lx1+0.5
	}
	ly0, ly1 := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
	if ly1 <= ly0 {
		ly1 = ly0 + 1
	}
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Min, p.X.Max = math.Pow(10, lx0), math.Pow(10, lx1)
	p.Y.Min, p.Y.Max = math.Pow(10, ly0), math.Pow(10, ly1)
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for _, x := range []float64{300, 1000, 3000, 10000, 30000, 100000, 300000} {
			if x >= lo*(1-1e-9) && x <= hi*(1+1e-9) {
				ticks = append(ticks, plot.Tick{Value: x, Label: tickFiles(x)})
			}
		}
		return ticks
	})
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, e); v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
					ticks = append(ticks, plot.Tick{Value: v, Label: tickMS(v)})
				}
			}
		}
		return ticks
	})
	return true
}

// addSeries draws one line with its markers (and the GOROOT copy's hollow
// square) and gives it a legend entry.
func addSeries(p *plot.Plot, s latencySeries, pts plotter.XYs, groot *treeResult) error {
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	line.Color, line.Width = s.color, vg.Points(2)
	if s.dash {
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	}
	if len(pts) > 1 {
		p.Add(line)
	}
	p.Legend.Add(s.label, line)
	if s.dash {
		return nil
	}
	dots, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	dots.GlyphStyle = draw.GlyphStyle{Color: s.color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	p.Add(dots)
	if groot == nil {
		return nil
	}
	if v, ok := med(groot, s.key); ok && v > 0 {
		sq, err := plotter.NewScatter(plotter.XYs{{X: float64(groot.Files), Y: v}})
		if err != nil {
			return err
		}
		sq.GlyphStyle = hollowSquare(s.color)
		p.Add(sq)
	}
	return nil
}

func hollowSquare(c color.RGBA) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: draw.SquareGlyph{}}
}

func render(p *plot.Plot) ([]byte, error) {
	w, err := p.WriterTo(8.2*vg.Inch, 4.7*vg.Inch, "svg")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

func tickMS(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%gs", v/1000)
	}
	return fmt.Sprintf("%gms", v)
}

func tickFiles(x float64) string {
	if x >= 1000 {
		return fmt.Sprintf("%gk", x/1000)
	}
	return fmt.Sprintf("%g", x)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
