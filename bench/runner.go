package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// timing is what one measured operation cost: wall-clock time, and CPU
// time (user+sys) of the processes it ran plus, with a daemon, of the
// daemon while it ran. CPU time barely moves when other work competes for
// the machine; wall time does.
type timing struct {
	wall, cpu time.Duration
	maxRSS    int64 // peak RSS of the command's process (bytes), if it ran one
}

func (t timing) plus(u timing) timing {
	return timing{t.wall + u.wall, t.cpu + u.cpu, max(t.maxRSS, u.maxRSS)}
}

// run runs a command and returns what it cost and its stdout. A non-zero
// exit is an error carrying stderr.
func run(ctx context.Context, dir string, env []string, name string, args ...string) (timing, string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := timing{wall: time.Since(start)}
	if cmd.ProcessState != nil {
		d.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			d.maxRSS = ru.Maxrss << 10
		}
	}
	if err != nil {
		return d, out.String(), fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return d, out.String(), nil
}

// baseEnv is the environment every measured command gets: the user's
// config files are kept out.
func baseEnv(work string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CKPT_") || strings.HasPrefix(k, "GIT_") || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	// The embedded figures stay embedded: the bench starts its daemons.
	return append(env, "XDG_CONFIG_HOME="+filepath.Join(work, "xdg-config"), "CKPT_AUTOSTART=0")
}

// shadow is the shadow-git approach: a GIT_DIR outside the workspace whose
// work tree is the workspace.
type shadow struct {
	ctx     context.Context
	gitDir  string
	workdir string
	env     []string
}

func newShadow(ctx context.Context, work, gitDir, tree string) *shadow {
	env := append(baseEnv(work),
		"GIT_DIR="+gitDir, "GIT_WORK_TREE="+tree,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost",
		// No automatic gc in the middle of a measurement: the shadow repo's
		// size is measured before and after an explicit git gc instead.
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
		"GIT_CONFIG_KEY_1=maintenance.auto", "GIT_CONFIG_VALUE_1=false",
	)
	return &shadow{ctx: ctx, gitDir: gitDir, workdir: tree, env: env}
}

func (g *shadow) git(args ...string) (timing, error) {
	d, _, err := run(g.ctx, g.workdir, g.env, "git", args...)
	return d, err
}

func (g *shadow) output(args ...string) (string, error) {
	_, out, err := run(g.ctx, g.workdir, g.env, "git", args...)
	return out, err
}

// steps runs git commands one after the other and sums their times.
func (g *shadow) steps(cmds ...[]string) (timing, error) {
	var total timing
	for _, c := range cmds {
		d, err := g.git(c...)
		total = total.plus(d)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// importRepo is the first shadow checkpoint: init, add everything, commit.
func (g *shadow) importRepo() (timing, error) {
	os.RemoveAll(g.gitDir)
	return g.steps([]string{"init", "-q"}, []string{"add", "-A"}, []string{"commit", "-q", "-m", "initial"})
}

// checkpoint is a warm shadow commit. --allow-empty: a checkpoint with no
// change is still a checkpoint (something to restore to).
func (g *shadow) checkpoint() (timing, error) {
	return g.steps([]string{"add", "-A"}, []string{"commit", "-q", "--allow-empty", "-m", "x"})
}

func (g *shadow) head() (string, error) {
	out, err := g.output("rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

func (g *shadow) status() (timing, error) { return g.git("status", "--porcelain") }

func (g *shadow) restore(commit string) (timing, error) {
	return g.steps([]string{"reset", "--hard", "-q", commit}, []string{"clean", "-fdq"})
}

func (g *shadow) gc() (timing, error) { return g.git("gc", "-q") }

// client runs the ckpt CLI on one workspace and state directory.
type client struct {
	// daemon, while one serves the workspace: its CPU time is added to each
	// command's, and a command fails if it has died (the client would
	// quietly fall back to embedded mode and measure that instead).
	daemon *daemon

	ctx   context.Context
	bin   string
	tree  string
	state string
	env   []string
}

func newClient(ctx context.Context, work, bin, tree, state string) *client {
	env := append(baseEnv(work), "CKPT_STATE_DIR="+state,
		// With no daemon, never wait long on a store another process holds.
		"CKPT_LOCK_TIMEOUT=5s")
	return &client{ctx: ctx, bin: bin, tree: tree, state: state, env: env}
}

// do runs `ckpt ARGS --json -C TREE` and decodes its JSON into v (if set).
func (c *client) do(v any, args ...string) (timing, error) {
	args = append(append([]string{}, args...), "--json", "-C", c.tree)
	var before time.Duration
	if c.daemon != nil {
		before = cpuTime(c.daemon.pid())
	}
	d, out, err := run(c.ctx, c.tree, c.env, c.bin, args...)
	if c.daemon != nil {
		d.cpu += cpuTime(c.daemon.pid()) - before
		if c.daemon.exited() {
			return d, fmt.Errorf("%w: %s", errDaemonDied, tail(c.daemon.log))
		}
	}
	if err != nil {
		return d, err
	}
	if v != nil {
		if err := json.Unmarshal([]byte(out), v); err != nil {
			return d, fmt.Errorf("ckpt %s: bad JSON: %w", args[0], err)
		}
	}
	return d, nil
}

type statusOut struct {
	took    time.Duration
	Files   int64 `json:"files"`
	Drifted bool  `json:"drifted"`
	Changes []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	Daemon struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	} `json:"daemon"`
	CurrentCheckpointID string `json:"current_checkpoint_id"`
	// Importing is set while the daemon's first import runs.
	Importing *struct {
		Done  int64 `json:"files_done"`
		Total int64 `json:"files_total"`
	} `json:"importing"`
}

type checkpointOut struct {
	CheckpointID string `json:"checkpoint_id"`
	Files        int64  `json:"files"`
}

type restoreOut struct {
	CheckpointID string            `json:"checkpoint_id"`
	Restored     []json.RawMessage `json:"restored"`
	Kept         []json.RawMessage `json:"kept"`
}

func (c *client) status() (timing, statusOut, error) {
	var s statusOut
	d, err := c.do(&s, "status")
	s.took = d.wall
	return d, s, err
}

func (c *client) checkpoint() (timing, checkpointOut, error) {
	var cp checkpointOut
	d, err := c.do(&cp, "checkpoint", "-m", "bench")
	return d, cp, err
}

func (c *client) restore(id string) (timing, restoreOut, error) {
	var r restoreOut
	d, err := c.do(&r, "restore", id, "--exact", "--yes")
	return d, r, err
}

// diskUsage is what du reports: allocated blocks of every file under dir.
func diskUsage(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}

// treeDigest summarizes a tree's paths, modes and bytes, to check that
// both approaches restored the same thing.
func treeDigest(root string) (string, error) {
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var sum string
		if info.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(p)
			sum = "l:" + t
		} else {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%o:%x", info.Mode().Perm()&0o111, fnv64(b))
		}
		lines = append(lines, rel+" "+sum)
		return nil
	})
	sort.Strings(lines)
	return fmt.Sprintf("%d files %x", len(lines), fnv64([]byte(strings.Join(lines, "\n")))), err
}

func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// copyTree copies src to dst with cp -a (dst must not exist).
func copyTree(ctx context.Context, src, dst string) error {
	_, _, err := run(ctx, "/", os.Environ(), "cp", "-a", src, dst)
	return err
}

// cpuTime is the CPU time a process has used so far: the sum of its
// threads' run time from /proc/PID/task/*/schedstat (nanoseconds; the
// clock-tick counters in /proc/PID/stat are too coarse for a 5 ms command).
func cpuTime(pid int) time.Duration {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(n)
		}
	}
	return total
}
