package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/cmd/internal/testbin"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// binDir holds the ckptd and ckpt binaries built for these tests (once
// for all test binaries: testbin.Build).
var binDir string

func TestMain(m *testing.M) {
	code, err := buildAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func buildAndRun(m *testing.M) (int, error) {
	bins, err := testbin.Build()
	if err != nil {
		return 0, err
	}
	if bins.CkptdErr != nil {
		return 0, bins.CkptdErr
	}
	binDir = bins.Dir
	return m.Run(), nil
}

// env is an isolated environment: its own HOME, config and state
// directories, never the real ones.
type env struct {
	t        *testing.T
	home     string
	stateDir string
	vars     []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	// The socket lives in the state directory: keep its path short.
	stateDir, err := os.MkdirTemp("", "ckd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stateDir) })
	home := t.TempDir()
	var vars []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CKPT_") || strings.HasPrefix(k, "XDG_") || k == "HOME" {
			continue
		}
		vars = append(vars, kv)
	}
	vars = append(vars, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "CKPT_STATE_DIR="+stateDir, "CKPT_AUTOSTART=0")
	return &env{t: t, home: home, stateDir: stateDir, vars: vars}
}

func (e *env) socket() string { return filepath.Join(e.stateDir, "ckptd.sock") }

// workspace makes a workspace directory holding files (path -> content).
func (e *env) workspace(files map[string]string) string {
	e.t.Helper()
	root, err := filepath.EvalSymlinks(e.t.TempDir())
	if err != nil {
		e.t.Fatal(err)
	}
	for p, content := range files {
		writeFile(e.t, root, p, content)
	}
	return root
}

func writeFile(t *testing.T, root, p, content string) {
	t.Helper()
	abs := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer collects a process's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// daemonProc is a running ckptd process.
type daemonProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}
	err    error // Wait's, once done is closed
}

// startDaemon runs `ckptd watch roots...` and waits until it serves them
// all. The daemon is killed when the test ends, if it still runs.
func (e *env) startDaemon(roots ...string) *daemonProc {
	e.t.Helper()
	return e.startDaemonEnv(nil, roots...)
}

// startDaemonEnv is startDaemon with extra environment variables.
func (e *env) startDaemonEnv(extra []string, roots ...string) *daemonProc {
	e.t.Helper()
	d := &daemonProc{stderr: &syncBuffer{}, done: make(chan struct{})}
	d.cmd = exec.Command(filepath.Join(binDir, "ckptd"), append([]string{"watch"}, roots...)...)
	d.cmd.Env = append(slices.Clip(e.vars), extra...)
	d.cmd.Stderr = d.stderr
	if err := d.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.done)
	}()
	e.t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			d.cmd.Process.Kill()
			<-d.done
		}
		if e.t.Failed() {
			e.t.Logf("ckptd's stderr:\n%s", d.stderr.String())
		}
	})
	e.waitServed(d, roots...)
	return d
}

// waitServed waits until the daemon answers and serves roots, ready.
func (e *env) waitServed(d *daemonProc, roots ...string) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-d.done:
			e.t.Fatalf("ckptd exited: %v\n%s", d.err, d.stderr.String())
		default:
		}
		if e.serves(roots...) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("ckptd does not serve %v after a minute:\n%s", roots, d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) serves(roots ...string) bool {
	c, err := client.Dial(e.socket(), client.Options{})
	if err != nil {
		return false
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	h, err := c.Health(ctx)
	if err != nil {
		return false
	}
	ready := map[string]bool{}
	for _, w := range h.Workspaces {
		ready[w.Root] = w.State == api.StateReady
	}
	for _, r := range roots {
		if !ready[r] {
			return false
		}
	}
	return true
}

// wait waits for the daemon to exit and returns its exit code.
func (d *daemonProc) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-d.done:
	case <-time.After(within):
		t.Fatalf("ckptd did not exit within %s:\n%s", within, d.stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(d.err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if d.err != nil {
		t.Fatal(d.err)
	}
	return 0
}

// run runs a binary of binDir in dir and returns its stdout, stderr and
// exit code.
func (e *env) run(dir, bin string, args ...string) (string, string, int) {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, bin), args...)
	cmd.Dir, cmd.Env = dir, e.vars
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		e.t.Fatal(err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// ckpt runs `ckpt --json args...` in root and decodes its answer into out;
// it fails the test unless ckpt exits 0.
func (e *env) ckpt(root string, out any, args ...string) {
	e.t.Helper()
	stdout, stderr, code := e.run(root, "ckpt", append([]string{"--json"}, args...)...)
	if code != 0 {
		e.t.Fatalf("ckpt %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), out); err != nil {
		e.t.Fatalf("ckpt %s: %v\n%s", strings.Join(args, " "), err, stdout)
	}
}
