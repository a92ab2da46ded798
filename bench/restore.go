package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The restore-only run: `go run ./bench -restore-bench` measures
// `ckpt restore ID --exact --yes` of 1,000 and 10,000 paths (embedded and
// through the daemon) against `git reset --hard && git clean -fd` on the
// same tree with the same edits, in the same run, and prints a markdown
// table. It writes nothing unless -keep keeps the scratch trees.
var (
	restoreBench     = flag.Bool("restore-bench", false, "restore-only run: restore --exact of -restore-paths paths vs git reset --hard + clean -fd, on the GOROOT copy (-goroot) and a -restore-tree-files tree; prints a table, writes nothing")
	restorePathsFlag = flag.String("restore-paths", "1000,10000", "with -restore-bench: how many paths each restore takes back")
	restoreTreeFiles = flag.Int("restore-tree-files", 0, "with -restore-bench: also a synthetic tree of this many files (200000: the 200k tree)")
	restoreCaptured  = flag.Bool("restore-captured", false, "with -restore-bench: let the daemon capture the edits (an untimed ckpt status) before each daemon restore, so its rows time the restore alone, not the copy-on-change of the edits")
)

// restoreRow is one tree, one restore size, one ckpt mode, next to git.
type restoreRow struct {
	tree, mode      string
	paths           int
	ckpt, git       []float64 // wall ms
	ckptCPU, gitCPU []float64
}

// restoreRuns is the -restore-bench run.
func (b *bench) restoreRuns() error {
	var counts []int
	for _, s := range strings.Split(*restorePathsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("bad -restore-paths entry %q", s)
		}
		counts = append(counts, n)
	}
	var specs []treeSpec
	if b.o.goroot {
		gr, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		specs = append(specs, treeSpec{Name: "goroot", Copy: strings.TrimSpace(string(gr))})
	}
	if *restoreTreeFiles > 0 {
		specs = append(specs, treeSpec{Name: sizeName(*restoreTreeFiles), Files: *restoreTreeFiles})
	}
	if len(specs) == 0 {
		return fmt.Errorf("-restore-bench: no tree (-goroot=false and no -restore-tree-files)")
	}
	var rows []*restoreRow
	for _, spec := range specs {
		r, err := b.restoreTree(spec, counts)
		if err != nil {
			return fmt.Errorf("tree %s: %w", spec.Name, err)
		}
		rows = append(rows, r...)
		if !b.o.keep {
			os.RemoveAll(filepath.Join(b.work, spec.Name))
		}
	}
	fmt.Printf("Command: `%s`, %d run(s) per row, load %s at the end.\n\n", commandLine(b.o), b.o.runs, loadavg())
	fmt.Println("| tree | paths | mode | ckpt ms | git ms | ckpt / git | CPU ckpt / git ms |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		c, g := median(r.ckpt), median(r.git)
		fmt.Printf("| %s | %d | %s | %.0f | %.0f | %.2f× | %.0f / %.0f |\n", r.tree, r.paths, r.mode, c, g, c/g, median(r.ckptCPU), median(r.gitCPU))
	}
	return nil
}

// restoreTree prepares one tree (ckpt imported, a shadow repository
// committed), then for each mode and size edits both copies the same way
// and restores both, alternating which goes first.
func (b *bench) restoreTree(spec treeSpec, counts []int) ([]*restoreRow, error) {
	dir := filepath.Join(b.work, spec.Name)
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	wc, wg := filepath.Join(dir, "ws-ckpt"), filepath.Join(dir, "ws-git")
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
	c := newClient(b.ctx, b.work, b.ckpt, wc, filepath.Join(dir, "state"))
	g := newShadow(b.ctx, b.work, filepath.Join(dir, "shadow.git"), wg)
	b.logf("tree %s: import", spec.Name)
	if _, _, err := c.status(); err != nil {
		return nil, err
	}
	if _, err := g.importRepo(); err != nil {
		return nil, err
	}
	files, err := trackedFiles(g)
	if err != nil {
		return nil, err
	}
	_, base, err := c.checkpoint()
	if err != nil {
		return nil, err
	}
	head, err := g.head()
	if err != nil {
		return nil, err
	}
	var rows []*restoreRow
	modes := []string{"embedded"}
	if b.ckptd != "" {
		modes = append(modes, "daemon")
	}
	for _, mode := range modes {
		if mode == "daemon" {
			d, _, err := startDaemon(b.ctx, b.ckptd, c, filepath.Join(dir, "ckptd.log"))
			if err != nil {
				return nil, err
			}
			c.daemon = d
		}
		for _, n := range counts {
			b.logf("tree %s: %s, restore %d paths", spec.Name, mode, n)
			row := &restoreRow{tree: spec.Name, mode: mode, paths: n}
			if err := b.restoreSeries(row, c, g, files, base.CheckpointID, head); err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
		if c.daemon != nil {
			err := c.daemon.stop()
			c.daemon = nil
			if err != nil {
				return nil, err
			}
		}
	}
	dc, err := treeDigest(wc)
	if err != nil {
		return nil, err
	}
	dg, err := treeDigest(wg)
	if err != nil {
		return nil, err
	}
	if dc != dg {
		return nil, fmt.Errorf("after the restores the trees differ: ckpt %s, git %s", dc, dg)
	}
	return rows, nil
}

// restoreSeries measures one row: -runs times the same kind of edits (new
// bytes each run) to both trees, then both restores.
func (b *bench) restoreSeries(row *restoreRow, c *client, g *shadow, files []string, id, head string) error {
	for i := 0; i < b.o.runs; i++ {
		tag := fmt.Sprintf("%s-rb%d-%d", row.mode, row.paths, i)
		m := mixed(files, row.paths, tag)
		if err := m.apply(c.tree, tag); err != nil {
			return err
		}
		if err := m.apply(g.workdir, tag); err != nil {
			return err
		}
		if *restoreCaptured && c.daemon != nil {
			if _, _, err := c.status(); err != nil {
				return err
			}
		}
		err := alternate(i, func() error {
			d, r, err := c.restore(id)
			row.ckpt, row.ckptCPU = append(row.ckpt, ms(d.wall)), append(row.ckptCPU, ms(d.cpu))
			if err == nil && len(r.Restored) != m.count() {
				return fmt.Errorf("restore of %d paths (%s) restored %d", m.count(), row.mode, len(r.Restored))
			}
			return err
		}, func() error {
			d, err := g.restore(head)
			row.git, row.gitCPU = append(row.git, ms(d.wall)), append(row.gitCPU, ms(d.cpu))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
