package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Helpers of the daemon's "never miss" tests (storm_test.go). Names carry
// a storm prefix so they do not collide with helpers others add.

// stormLong says whether the extra-large variants run (CKPT_LONG=1).
func stormLong() bool { return os.Getenv("CKPT_LONG") == "1" }

// stormTimeout bounds one ckpt command of the storm tests: the run helper's
// commandTimeout, longer for the extra-large variants.
func stormTimeout() time.Duration {
	if stormLong() {
		return 10 * time.Minute
	}
	return commandTimeout
}

// stormStatusJSON is `ckpt status --json` with the daemon's counters.
type stormStatusJSON struct {
	statusJSON
	Daemon struct {
		Running     bool   `json:"running"`
		PID         int    `json:"pid"`
		WatchedDirs int    `json:"watched_dirs"`
		QueueDepth  int    `json:"queue_depth"`
		Overflows   int64  `json:"overflows"`
		Rewalks     int64  `json:"rewalks"`
		Events      int64  `json:"events"`
		LastError   string `json:"last_error"`
	} `json:"daemon"`
}

// stormExec runs prog without a *testing.T, so that goroutines may call
// it; err is set only when prog could not run or timed out.
func stormExec(dir string, env []string, timeout time.Duration, prog string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("%s %s did not finish within %s\n%s", prog, strings.Join(args, " "), timeout, r)
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		return r, fmt.Errorf("%s %s: %v", prog, strings.Join(args, " "), err)
	}
	return r, nil
}

// stormJSON runs `ckpt ARGS --json` in the workspace with extra env, with
// stormTimeout, requires exit 0 and decodes the one JSON object into v. It
// returns how long the command took.
func (ws *workspace) stormJSON(v any, env []string, args ...string) time.Duration {
	ws.t.Helper()
	start := time.Now()
	r, err := stormExec(ws.root, append(slices.Clone(ws.env), env...), stormTimeout(), ckptBin, append(args, "--json")...)
	took := time.Since(start)
	if err != nil {
		ws.t.Fatalf("%v%s", err, ws.daemonLog())
	}
	if r.code != 0 {
		ws.t.Fatalf("unexpected failure:\n%s%s", r, ws.daemonLog())
	}
	if err := decodeOne(r.stdout, v); err != nil {
		ws.t.Fatalf("%v\n%s", err, r)
	}
	return took
}

// stormDaemonStatus is `ckpt status --json` answered by the daemon.
func (ws *workspace) stormDaemonStatus(what string) stormStatusJSON {
	ws.t.Helper()
	var s stormStatusJSON
	took := ws.stormJSON(&s, nil, "status")
	if !s.Daemon.Running {
		ws.t.Fatalf("%s: ckpt status was not answered by the daemon (daemon.running false)%s", what, ws.daemonLog())
	}
	ws.t.Logf("%s: ckpt status (daemon) took %s: %d files, %d changes, fingerprint %s; daemon: %d dirs watched, %d events, %d overflows, %d re-walks",
		what, took.Round(time.Millisecond), s.Files, len(s.Changes), s.Fingerprint, s.Daemon.WatchedDirs, s.Daemon.Events, s.Daemon.Overflows, s.Daemon.Rewalks)
	return s
}

var stormFreshSeq atomic.Int64

// stormFreshScan is `ckpt status --json` in embedded mode with a new,
// empty state directory and a socket no daemon serves: a fresh import of
// the tree as it is on disk now, the truth to compare the daemon with.
func (ws *workspace) stormFreshScan(what string) stormStatusJSON {
	ws.t.Helper()
	dir := filepath.Join(ws.base, fmt.Sprintf("fresh%d", stormFreshSeq.Add(1)))
	env := []string{"CKPT_STATE_DIR=" + dir, "CKPT_SOCKET=" + filepath.Join(dir, "none.sock")}
	var s stormStatusJSON
	took := ws.stormJSON(&s, env, "status")
	if s.Daemon.Running {
		ws.t.Fatalf("%s: the fresh scan reached a daemon (daemon.running true)", what)
	}
	if s.Drifted || len(s.Changes) != 0 {
		ws.t.Errorf("%s: a fresh import shows drift %v with %d changes", what, s.Drifted, len(s.Changes))
	}
	ws.t.Logf("%s: fresh scan (embedded, empty state) took %s: %d files, fingerprint %s", what, took.Round(time.Millisecond), s.Files, s.Fingerprint)
	return s
}

// stormAssertFresh compares the daemon's fingerprint and file count with a
// fresh scan of the same tree.
func (ws *workspace) stormAssertFresh(what string, s stormStatusJSON) {
	ws.t.Helper()
	f := ws.stormFreshScan(what)
	if s.Fingerprint != f.Fingerprint || s.Files != f.Files {
		ws.t.Errorf("%s: the daemon says fingerprint %s, %d files; a fresh scan of the same tree says %s, %d files",
			what, s.Fingerprint, s.Files, f.Fingerprint, f.Files)
	}
}

// stormNeverCaptured says whether a relative path is never captured: in a
// .git directory, or one of ckpt's own ".ckpt~" files (sync cookies,
// restore temporaries).
func stormNeverCaptured(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == ".git" || strings.HasPrefix(c, ".ckpt~") {
			return true
		}
	}
	return false
}

// stormExpected is the changes from one tree to another as "kind path"
// lines, sorted: files and symlinks only (directories are not captured),
// .git and ckpt's own files excluded.
func stormExpected(before, after tree) []string {
	var out []string
	for p, a := range after {
		if a.Kind == "dir" || stormNeverCaptured(p) {
			continue
		}
		b, ok := before[p]
		switch {
		case !ok || b.Kind == "dir":
			out = append(out, "added "+p)
		case b != a:
			out = append(out, "modified "+p)
		}
	}
	for p, b := range before {
		if b.Kind == "dir" || stormNeverCaptured(p) {
			continue
		}
		if a, ok := after[p]; !ok || a.Kind == "dir" {
			out = append(out, "deleted "+p)
		}
	}
	slices.Sort(out)
	return out
}

// stormAssertChanges fails (without stopping) unless got is exactly want;
// it compares as sets, so that 20,000 changes are cheap, and lists at most
// 25 differences each way.
func stormAssertChanges(t *testing.T, what string, got []change, want []string) bool {
	t.Helper()
	g := map[string]int{}
	for _, c := range got {
		g[c.Kind+" "+c.Path]++
	}
	w := map[string]bool{}
	for _, l := range want {
		w[l] = true
	}
	var missing, extra, dup []string
	for _, l := range want {
		if g[l] == 0 {
			missing = append(missing, l)
		}
	}
	for l, n := range g {
		if !w[l] {
			extra = append(extra, l)
		}
		if n > 1 {
			dup = append(dup, l)
		}
	}
	if len(missing)+len(extra)+len(dup) == 0 {
		return true
	}
	slices.Sort(missing)
	slices.Sort(extra)
	slices.Sort(dup)
	cut := func(l []string) string {
		if len(l) > 25 {
			return fmtList(l[:25]) + fmt.Sprintf(" and %d more", len(l)-25)
		}
		return fmtList(l)
	}
	t.Errorf("%s: %d changes, want %d\n  missing (%d)    %s\n  unexpected (%d) %s\n  listed twice (%d) %s",
		what, len(got), len(want), len(missing), cut(missing), len(extra), cut(extra), len(dup), cut(dup))
	return false
}

// stormAssertTree is assertTree that lists at most 40 differences.
func stormAssertTree(t *testing.T, what string, want, got tree) {
	t.Helper()
	d := diffTrees(want, got)
	if len(d) == 0 {
		return
	}
	n := len(d)
	if n > 40 {
		d = append(d[:40], fmt.Sprintf("... and %d more", n-40))
	}
	t.Errorf("%s: the tree differs in %d paths:\n  %s", what, n, strings.Join(d, "\n  "))
}

// stormKillDaemon kills the daemon with SIGKILL and waits for it to die.
func (ws *workspace) stormKillDaemon() {
	ws.t.Helper()
	d := ws.daemon
	if d == nil {
		ws.t.Fatal("stormKillDaemon: no daemon")
	}
	if err := syscall.Kill(d.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		ws.t.Fatalf("kill -9 ckptd: %v", err)
	}
	select {
	case <-d.done:
	case <-time.After(15 * time.Second):
		ws.t.Fatal("ckptd did not die within 15s of SIGKILL")
	}
	ws.daemon = nil
}

// stormStartDaemon starts ckptd like startDaemon, but waits for the
// daemon's socket to accept connections before the first ckpt status, so
// that the status that proves it serves the workspace cannot be answered
// by an embedded client that beat the daemon to the store (after a kill
// -9 the stale socket file is still there: a connect is refused until the
// new daemon listens).
func (ws *workspace) stormStartDaemon(env ...string) {
	ws.t.Helper()
	if ws.daemon != nil {
		ws.t.Fatal("stormStartDaemon: a daemon is running already")
	}
	log, err := os.CreateTemp(ws.logs, "ckptd-*.log")
	if err != nil {
		ws.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(ckptdBin, "watch", ws.root)
	cmd.Dir = ws.root
	cmd.Env = append(slices.Clone(ws.env), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		ws.t.Fatalf("start ckptd: %v", err)
	}
	d := &daemonProc{cmd: cmd, log: log.Name(), done: make(chan struct{})}
	go func() { d.err = cmd.Wait(); close(d.done) }()
	ws.daemon = d
	ws.t.Cleanup(func() {
		if ws.daemon == d {
			ws.stopDaemon()
		}
	})
	sock := filepath.Join(ws.state, "ckptd.sock")
	deadline := time.Now().Add(stormTimeout())
	for {
		select {
		case <-d.done:
			ws.daemon = nil
			ws.t.Fatalf("ckptd watch exited before listening: %v%s", d.err, logTail(d.log))
		default:
		}
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			ws.t.Fatalf("ckptd did not listen on %s within %s%s", sock, stormTimeout(), logTail(d.log))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stormBase writes the pre-existing tree the storm mutates: n directories
// base/dNN, each with files in two levels, some executable, some symlinks.
// It returns the directories.
func (ws *workspace) stormBase(n, files int) []string {
	ws.t.Helper()
	var dirs []string
	for d := range n {
		dir := fmt.Sprintf("base/d%02d", d)
		dirs = append(dirs, dir)
		for f := range files {
			rel := fmt.Sprintf("%s/f%02d.txt", dir, f)
			if f%2 == 1 {
				rel = fmt.Sprintf("%s/sub/f%02d.txt", dir, f)
			}
			ws.write(rel, strings.Repeat(fmt.Sprintf("base %d %d\n", d, f), 1+f%5))
			if f%7 == 0 {
				ws.chmod(rel, 0o755)
			}
		}
		ws.symlink("f00.txt", dir+"/link")
	}
	return dirs
}

// stormSpec is one storm: new directories under top, each a subtree with
// files files at depth 0 to 3 below it, made by workers goroutines that
// also delete whole subtrees, append to files, rename directories, and
// mutate the pre-existing directories base.
type stormSpec struct {
	top     string
	dirs    int
	files   int
	workers int
	base    []string
}

// stormRun runs the storm in root as fast as it can (no sleeps); created
// counts the files written so far, for a caller that acts midway.
func stormRun(root string, s stormSpec, created *atomic.Int64) error {
	var wg sync.WaitGroup
	errs := make([]error, s.workers)
	for w := range s.workers {
		wg.Go(func() { errs[w] = stormWorker(root, s, w, created) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// stormIgnore drops "does not exist": a worker may append to or rename a
// path inside a subtree it has already removed or moved.
func stormIgnore(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func stormWorker(root string, s stormSpec, w int, created *atomic.Int64) error {
	abs := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	type sub struct{ dir, leaf string } // the subtree's root, and where its files are
	var live []sub
	var base []string
	for i, b := range s.base {
		if i%s.workers == w {
			base = append(base, b)
		}
	}
	appendTo := func(rel, text string) error {
		f, err := os.OpenFile(abs(rel), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return stormIgnore(err)
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	drop := func(dir string) {
		live = slices.DeleteFunc(live, func(x sub) bool { return x.dir == dir || strings.HasPrefix(x.dir, dir+"/") })
	}
	move := func(from, to string) error {
		if err := os.Rename(abs(from), abs(to)); err != nil {
			return stormIgnore(err)
		}
		for i := range live {
			if live[i].dir == from || strings.HasPrefix(live[i].dir, from+"/") {
				live[i].dir = to + strings.TrimPrefix(live[i].dir, from)
				live[i].leaf = to + strings.TrimPrefix(live[i].leaf, from)
			}
		}
		return nil
	}
	k := 0
	for j := w; j < s.dirs; j += s.workers {
		k++
		dir := fmt.Sprintf("%s/w%d/d%04d", s.top, w, j)
		leaf := dir + []string{"", "/a", "/a/b", "/a/b/c"}[j%4]
		if err := os.MkdirAll(abs(leaf), 0o755); err != nil {
			return err
		}
		for f := range s.files {
			content := fmt.Sprintf("storm w%d d%d f%d\n", w, j, f)
			if err := os.WriteFile(abs(fmt.Sprintf("%s/f%03d.txt", leaf, f)), []byte(content), 0o644); err != nil {
				return err
			}
			created.Add(1)
		}
		live = append(live, sub{dir, leaf})
		n := len(live)
		switch {
		case k%10 == 3 && n > 3: // delete a whole earlier subtree
			d := live[n/2].dir
			if err := os.RemoveAll(abs(d)); err != nil {
				return err
			}
			drop(d)
		case k%10 == 6 && n > 1: // append to files of earlier subtrees
			for _, x := range []sub{live[0], live[n/2]} {
				if err := appendTo(x.leaf+"/f001.txt", fmt.Sprintf("appended at %d\n", k)); err != nil {
					return err
				}
			}
		case k%25 == 12 && n > 2: // rename a directory in place
			if err := move(live[1].dir, live[1].dir+".mv"); err != nil {
				return err
			}
		case k%25 == 24 && n > 3: // move a subtree into a newer one
			from := live[2].dir
			if err := move(from, live[n-1].dir+"/nested-"+filepath.Base(from)); err != nil {
				return err
			}
		}
		if k%5 == 0 && k/5-1 < len(base) { // mutate a pre-existing directory
			b := base[k/5-1]
			switch (k/5 - 1) % 4 {
			case 0:
				if err := os.RemoveAll(abs(b)); err != nil {
					return err
				}
			case 1:
				for f := range 4 {
					if err := appendTo(fmt.Sprintf("%s/f%02d.txt", b, 2*f), "appended\n"); err != nil {
						return err
					}
				}
				if err := os.Chmod(abs(b+"/f02.txt"), 0o755); err != nil {
					return err
				}
			case 2:
				if err := os.Rename(abs(b), abs(b+".renamed")); err != nil {
					return err
				}
			case 3:
				if err := os.RemoveAll(abs(b + "/sub")); err != nil {
					return err
				}
				if err := os.WriteFile(abs(b+"/sub"), []byte("a file where a directory was\n"), 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
