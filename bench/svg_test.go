package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"
)

// TestLatencyPlot: the plot of the committed results is an SVG document
// with every series in its legend, and results with nothing to plot (as
// from a failed run) give a plot that says so rather than an error.
func TestLatencyPlot(t *testing.T) {
	b, err := os.ReadFile("results.json")
	if err != nil {
		t.Fatal(err)
	}
	var res results
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	empty := results{Date: "today", Trees: []*treeResult{{Name: "1k"}}}
	for _, c := range []struct {
		name string
		res  *results
		want []string
	}{
		{"results.json", &res, []string{"shadow git: add -A + commit", "ckpt checkpoint, daemon", "target: 0.05× shadow git", "GOROOT copy", "10ms", "10k"}},
		{"no data", &empty, []string{"no data"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			svg, err := latencyPlot(c.res)
			if err != nil {
				t.Fatal(err)
			}
			if err := xml.Unmarshal(svg, new(struct{ XMLName xml.Name })); err != nil {
				t.Fatalf("not XML: %v", err)
			}
			if !strings.Contains(string(svg), "<svg") {
				t.Fatal("no <svg element")
			}
			for _, w := range c.want {
				if !strings.Contains(string(svg), w) {
					t.Errorf("the plot has no %q", w)
				}
			}
		})
	}
}
