package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// startupRuns is the -startup mode: the CLI's start-up cost when a
// daemon answers. It starts ckptd on a small tree and times `ckpt status
// --json` through it (the process start, the config, the socket, one
// health and one status call), next to `ckpt help` (the process floor,
// no socket), a Go binary that does nothing and `git --version`:
//
//	go run ./bench -startup=200
//	go run ./bench -startup=200 -ckpt=OLD/ckpt -ckptd=OLD/ckptd   # another build
//
// It prints the medians and the 99th percentiles of the wall time, and the
// median CPU time (the client's, plus the daemon's for status), and writes
// nothing.
func (b *bench) startupRuns(n int) error {
	if b.ckptd == "" {
		return fmt.Errorf("-startup needs ckptd: %s", b.daemonNote)
	}
	tree := filepath.Join(b.work, "startup-tree")
	state := filepath.Join(b.work, "startup-state")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return err
	}
	if _, err := genTree(tree, 100); err != nil {
		return err
	}
	c := newClient(b.ctx, b.work, b.ckpt, tree, state)
	d, _, err := startDaemon(b.ctx, b.ckptd, c, filepath.Join(b.work, "startup-ckptd.log"))
	if err != nil {
		return err
	}
	defer d.stop()
	c.daemon = d
	empty, err := buildEmpty(b)
	if err != nil {
		return err
	}
	var status, help, git, none, statusCPU, helpCPU []float64
	for i := -10; i < n; i++ { // 10 warm-up rounds, not counted
		t, s, err := c.status()
		if err != nil {
			return err
		}
		if !s.Daemon.Running {
			return fmt.Errorf("ckpt status was not answered by the daemon")
		}
		th, _, err := run(b.ctx, tree, c.env, b.ckpt, "help")
		if err != nil {
			return err
		}
		tg, _, err := run(b.ctx, tree, c.env, "git", "--version")
		if err != nil {
			return err
		}
		te, _, err := run(b.ctx, tree, c.env, empty)
		if err != nil {
			return err
		}
		if i >= 0 {
			status, help, git = append(status, ms(t.wall)), append(help, ms(th.wall)), append(git, ms(tg.wall))
			none = append(none, ms(te.wall))
			statusCPU, helpCPU = append(statusCPU, ms(t.cpu)), append(helpCPU, ms(th.cpu))
		}
	}
	fmt.Printf("%d runs each, %s, %s\n", n, b.ckpt, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	for _, row := range []struct {
		name string
		xs   []float64
	}{{"ckpt status --json (daemon answers)", status}, {"ckpt help", help}, {"a Go binary that does nothing", none}, {"git --version", git}} {
		fmt.Printf("%-38s median %6.2f ms   p99 %6.2f ms\n", row.name, median(row.xs), quantile(row.xs, 0.99))
	}
	fmt.Printf("ckpt status / the empty binary: %.1fx (medians)\n", median(status)/median(none))
	fmt.Printf("CPU (user+sys) medians: ckpt status %.2f ms (with the daemon's share), ckpt help %.2f ms\n", median(statusCPU), median(helpCPU))
	return nil
}

// buildEmpty builds a static Go binary whose main does nothing: the floor
// of any Go command's start.
func buildEmpty(b *bench) (string, error) {
	dir := filepath.Join(b.work, "empty-main")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module empty\n\ngo 1.24\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(b.work, "bin", "empty")
	env := append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if _, _, err := run(b.ctx, dir, env, "go", "build", "-o", bin, "."); err != nil {
		return "", err
	}
	return bin, nil
}
