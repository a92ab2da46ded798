package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// workspace is one temporary workspace with its own state, home and
// "outside" directories, driven in one mode.
type workspace struct {
	t       *testing.T
	mode    mode
	base    string // the temporary directory holding everything below
	root    string // the workspace
	state   string // CKPT_STATE_DIR
	home    string // HOME, XDG_*
	outside string // a directory next to the workspace that must never be written
	logs    string // daemon logs
	env     []string
	extra   []string // env given to newWorkspace, also the daemon's
	daemon  *daemonProc
	started bool
	cred    *syscall.Credential // ckpt and ckptd run as this user; nil = as the test
}

// newWorkspace makes an empty workspace; write its first files, then call
// start. env adds KEY=VALUE pairs to every command and to the daemon.
func newWorkspace(t *testing.T, m mode, env ...string) *workspace {
	t.Helper()
	statSources()
	// Short paths: the daemon's socket lives under the state directory and
	// a unix socket path must stay under 108 bytes.
	base, err := os.MkdirTemp("", "ckpt-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if base, err = filepath.EvalSymlinks(base); err != nil {
		t.Fatal(err)
	}
	ws := &workspace{
		t: t, mode: m, base: base,
		root:    filepath.Join(base, "ws"),
		state:   filepath.Join(base, "state"),
		home:    filepath.Join(base, "home"),
		outside: filepath.Join(base, "outside"),
		logs:    filepath.Join(base, "logs"),
		extra:   env,
	}
	for _, d := range []string{ws.root, ws.home, ws.outside, ws.logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws.env = isolatedEnv(ws.state, ws.home, env)
	return ws
}

// isolatedEnv is the test process's environment without any CKPT_*, HOME,
// XDG_* or GIT_* setting, with those pointed into the temporary directory.
func isolatedEnv(state, home string, extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CKPT_") || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "GIT_") || k == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"CKPT_STATE_DIR="+state,
		// Embedded stays embedded; daemon mode starts its own daemon. The
		// autostart tests turn it on.
		"CKPT_AUTOSTART=0",
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_RUNTIME_DIR="+filepath.Join(home, "run"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com",
	)
	return append(env, extra...)
}

// start imports the workspace: the first ckpt command in embedded mode,
// ckptd watch in daemon mode.
func (ws *workspace) start() {
	ws.t.Helper()
	if ws.mode == daemon {
		ws.startDaemon()
	}
	ws.status()
	ws.started = true
}

// ckpt runs the client in the workspace root (no -C: the workspace is found
// from the current directory, as people use it).
func (ws *workspace) ckpt(args ...string) (stdout, stderr string, code int) {
	ws.t.Helper()
	r := ws.ckptResult(args...)
	return r.stdout, r.stderr, r.code
}

func (ws *workspace) ckptResult(args ...string) result {
	ws.t.Helper()
	return runAs(ws.t, ws.cred, ws.root, ws.env, ckptBin, args...)
}

// ckptEnv runs the client with extra environment.
func (ws *workspace) ckptEnv(env []string, args ...string) result {
	ws.t.Helper()
	return runAs(ws.t, ws.cred, ws.root, append(append([]string(nil), ws.env...), env...), ckptBin, args...)
}

// ckptOK runs the client and fails the test unless it exits 0.
func (ws *workspace) ckptOK(args ...string) string {
	ws.t.Helper()
	r := ws.ckptResult(args...)
	if r.code != 0 {
		ws.t.Fatalf("unexpected failure:\n%s", r)
	}
	return r.stdout
}

// ckptJSON runs the client with --json, requires exit 0 and exactly one
// JSON object on stdout, and decodes it into v.
func (ws *workspace) ckptJSON(v any, args ...string) {
	ws.t.Helper()
	r := ws.ckptResult(append(args, "--json")...)
	if r.code != 0 {
		ws.t.Fatalf("unexpected failure:\n%s", r)
	}
	if err := decodeOne(r.stdout, v); err != nil {
		ws.t.Fatalf("%v\n%s", err, r)
	}
}

// decodeOne decodes stdout, which must be exactly one JSON object.
func decodeOne(stdout string, v any) error {
	if !strings.HasPrefix(strings.TrimSpace(stdout), "{") {
		return fmt.Errorf("stdout is not a JSON object")
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("stdout is not one JSON object: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("stdout holds more than one JSON object")
	}
	return nil
}

// status is `ckpt status --json`; in daemon mode it also checks that the
// daemon answered.
func (ws *workspace) status() statusJSON {
	ws.t.Helper()
	var s statusJSON
	ws.ckptJSON(&s, "status")
	if ws.mode == daemon && !s.Daemon.Running {
		ws.t.Fatalf("ckpt status: the daemon is not serving the workspace (daemon.running false)%s", ws.daemonLog())
	}
	if ws.mode == embedded && s.Daemon.Running {
		ws.t.Fatalf("ckpt status: daemon.running true in embedded mode")
	}
	return s
}

// sh runs a shell script in the workspace root; it must succeed.
func (ws *workspace) sh(script string) string {
	ws.t.Helper()
	r := run(ws.t, ws.root, ws.env, "sh", "-c", script)
	if r.code != 0 {
		ws.t.Fatalf("sh -c %q: exit %d\n%s%s", script, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// exec runs a program in the workspace root; it must succeed.
func (ws *workspace) exec(prog string, args ...string) string {
	ws.t.Helper()
	r := run(ws.t, ws.root, ws.env, prog, args...)
	if r.code != 0 {
		ws.t.Fatalf("%s %s: exit %d\n%s%s", prog, strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func (ws *workspace) path(rel string) string { return filepath.Join(ws.root, filepath.FromSlash(rel)) }

// write writes a file in place (truncate and write), creating parents.
func (ws *workspace) write(rel, content string) {
	ws.t.Helper()
	p := ws.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		ws.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		ws.t.Fatal(err)
	}
}

// editorWrite saves a file the way editors do: a temporary file next to
// it, renamed over it.
func (ws *workspace) editorWrite(rel, content string) {
	ws.t.Helper()
	p := ws.path(rel)
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".swp")
	mode := os.FileMode(0o644)
	if info, err := os.Stat(p); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.WriteFile(tmp, []byte(content), mode); err != nil {
		ws.t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		ws.t.Fatal(err)
	}
}

func (ws *workspace) read(rel string) string {
	ws.t.Helper()
	b, err := os.ReadFile(ws.path(rel))
	if err != nil {
		ws.t.Fatal(err)
	}
	return string(b)
}

func (ws *workspace) exists(rel string) bool {
	_, err := os.Lstat(ws.path(rel))
	return err == nil
}

func (ws *workspace) chmod(rel string, mode os.FileMode) {
	ws.t.Helper()
	if err := os.Chmod(ws.path(rel), mode); err != nil {
		ws.t.Fatal(err)
	}
}

func (ws *workspace) symlink(target, rel string) {
	ws.t.Helper()
	p := ws.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		ws.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		ws.t.Fatal(err)
	}
}

// rm removes a file, a symlink or a whole directory.
func (ws *workspace) rm(rel string) {
	ws.t.Helper()
	if err := os.RemoveAll(ws.path(rel)); err != nil {
		ws.t.Fatal(err)
	}
}

func (ws *workspace) mkdirAll(rel string) {
	ws.t.Helper()
	if err := os.MkdirAll(ws.path(rel), 0o755); err != nil {
		ws.t.Fatal(err)
	}
}

// tree is the workspace on disk.
func (ws *workspace) tree() tree {
	ws.t.Helper()
	return snapshotTree(ws.t, ws.root)
}

// outsideTree is everything in the temporary directory except the
// workspace, the state directory (ckpt's own) and the daemon logs: the
// places ckpt must never write.
func (ws *workspace) outsideTree() tree {
	ws.t.Helper()
	all := snapshotTree(ws.t, ws.base)
	for p := range all {
		for _, own := range []string{"ws", "state", "logs"} {
			if p == own || strings.HasPrefix(p, own+"/") {
				delete(all, p)
			}
		}
	}
	return all
}

// daemonProc is a running ckptd.
type daemonProc struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // set when done is closed
}

// startDaemon starts `ckptd watch ROOT` in the background and waits until
// it serves the workspace and its first import is done. env adds to the
// workspace's environment.
func (ws *workspace) startDaemon(env ...string) {
	ws.t.Helper()
	if ws.daemon != nil {
		ws.t.Fatal("startDaemon: a daemon is running already")
	}
	log, err := os.CreateTemp(ws.logs, "ckptd-*.log")
	if err != nil {
		ws.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(ckptdBin, "watch", ws.root)
	cmd.Dir = ws.root
	cmd.Env = append(append([]string(nil), ws.env...), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: ws.cred}
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
	deadline := time.Now().Add(30 * time.Second)
	// While the client cannot reach the daemon it opens the store itself
	// and waits for the daemon's lock: keep that wait short.
	poll := []string{"CKPT_LOCK_TIMEOUT=200ms"}
	var last result
	for time.Now().Before(deadline) {
		select {
		case <-d.done:
			ws.daemon = nil
			ws.t.Fatalf("ckptd watch exited before serving the workspace: %v%s", d.err, logTail(d.log))
		default:
		}
		last = ws.ckptEnv(poll, "status", "--json")
		var s statusJSON
		if last.code == 0 && decodeOne(last.stdout, &s) == nil && s.Daemon.Running && s.Importing == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ws.t.Fatalf("ckptd watch did not serve the workspace within 30s; last ckpt status:\n%s%s", last, logTail(d.log))
}

// stopDaemon stops the daemon with SIGTERM (kill -9 after 15s) and checks
// that it had not died before and that it exits 0.
func (ws *workspace) stopDaemon() {
	ws.t.Helper()
	d := ws.daemon
	if d == nil {
		return
	}
	ws.daemon = nil
	select {
	case <-d.done:
		ws.t.Errorf("ckptd died during the test: %v%s", d.err, logTail(d.log))
		return
	default:
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
		if d.err != nil {
			ws.t.Errorf("ckptd on SIGTERM: %v (CONTRACT: finish in-flight work, exit 0)%s", d.err, logTail(d.log))
		}
	case <-time.After(15 * time.Second):
		d.cmd.Process.Kill()
		<-d.done
		ws.t.Errorf("ckptd did not exit within 15s of SIGTERM; killed%s", logTail(d.log))
	}
}

// waitDaemonExit waits for the daemon to exit on its own (a test crash) and
// returns its exit code.
func (ws *workspace) waitDaemonExit(within time.Duration) int {
	ws.t.Helper()
	d := ws.daemon
	select {
	case <-d.done:
	case <-time.After(within):
		ws.t.Fatalf("ckptd did not exit within %s%s", within, logTail(d.log))
	}
	ws.daemon = nil
	var ee *exec.ExitError
	if errors.As(d.err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// restartDaemon stops the daemon and starts a new one.
func (ws *workspace) restartDaemon(env ...string) {
	ws.t.Helper()
	ws.stopDaemon()
	ws.startDaemon(env...)
}

func (ws *workspace) daemonLog() string {
	if ws.daemon == nil {
		return ""
	}
	return logTail(ws.daemon.log)
}

func logTail(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	// A Go crash dumps every goroutine: its cause is at the start.
	for _, mark := range []string{"panic: ", "fatal error: ", "unexpected fault", "unexpected signal"} {
		if i := bytes.Index(b, []byte(mark)); i >= 0 {
			b = b[i:min(len(b), i+4000)]
			return "\nckptd crashed (log from the crash):\n" + string(b)
		}
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return "\n(ckptd log empty)"
	}
	return "\nckptd log (tail):\n" + string(b)
}
