package uitest

import (
	"os"
	"path/filepath"
	"testing"
)

// A realistic turn: an edit tool, a bash command with side effects, a
// deleted file and a review mark, with a diff open. With
// CKPT_PANEL_README=1 its screenshot becomes the README's docs/panel.png.
func TestRunViewOverview(t *testing.T) {
	d := startDaemon(t, map[string]string{
		"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
		"util/util.go": "package util\n\nfunc Add(a, b int) int { return a + b }\n",
		"old_test.go":  "package main\n",
		"NOTES.md":     "- ship it\n",
	})
	d.ckpt("run", "start", "--session", "claude-7f3a", "--run", "turn-4")
	d.toolStart("claude-7f3a", "turn-4", "toolu_01", "Edit "+d.path("main.go"))
	d.write("main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/app/util\"\n)\n\nfunc main() {\n\tfmt.Println(\"hello\", util.Add(1, 2))\n}\n")
	d.ckpt("tool", "end", "--session", "claude-7f3a", "--run", "turn-4", "--call", "toolu_01")
	d.ckpt("exec", "--session", "claude-7f3a", "--run", "turn-4", "--call", "toolu_02", "--", "sh", "-c",
		"rm old_test.go; printf 'package util\\n\\nfunc Add(a, b int) int { return a + b }\\n\\nfunc Sub(a, b int) int { return a - b }\\n' > util/util.go; echo 'package util' > util/util_test.go")
	d.ckpt("run", "end", "--session", "claude-7f3a", "--run", "turn-4")
	p := d.open(t, runHash("claude-7f3a", "turn-4"))
	p.click(row("util/util_test.go") + " button.accept")
	p.wait(rowJS("util/util_test.go") + `?.dataset.review === 'accepted'`)
	for path, kind := range map[string]string{"main.go": "modified", "util/util.go": "modified", "old_test.go": "deleted", "util/util_test.go": "added"} {
		if got := p.str(rowJS(path) + `.dataset.kind`); got != kind {
			t.Errorf("%s shows as %q, want %q", path, got, kind)
		}
	}
	js[bool](p, `(localStorage.setItem('ckpt.diffMode', 'unified'), true)`)
	p.click(row("main.go") + " td.path button")
	p.wait(`document.querySelector('#diff-pane tr.add') !== null`)
	file := p.shot("overview")
	p.dark(true)
	p.shot("overview-dark")
	if os.Getenv("CKPT_PANEL_README") == "1" && file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "panel.png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
