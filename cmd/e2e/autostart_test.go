package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// autostartStatus is the part of `ckpt status --json` these tests read.
type autostartStatus struct {
	Daemon struct {
		Running   bool   `json:"running"`
		PID       int    `json:"pid"`
		StartHint string `json:"start_hint"`
	} `json:"daemon"`
	Files int64 `json:"files"`
}

// newAutostartWorkspace is a workspace with two files whose commands may
// start a daemon; every ckptd it starts is stopped when the test ends.
func newAutostartWorkspace(t *testing.T) *workspace {
	t.Helper()
	requireDaemon(t)
	ws := newWorkspace(t, embedded, "CKPT_AUTOSTART=1")
	ws.write("main.go", "package main\n")
	ws.write("NOTES.md", "notes\n")
	t.Cleanup(func() { stopDaemons(t, ws.state) })
	return ws
}

func (ws *workspace) autostartStatus(env ...string) (autostartStatus, result) {
	ws.t.Helper()
	r := ws.ckptEnv(env, "status", "--json")
	var s autostartStatus
	if r.code != 0 {
		ws.t.Fatalf("ckpt status:\n%s", r)
	}
	if err := decodeOne(r.stdout, &s); err != nil {
		ws.t.Fatalf("ckpt status --json: %v\n%s", err, r)
	}
	return s, r
}

// A command that finds no daemon starts one for the workspace, answers
// through it, and the next command uses the same daemon without starting
// another.
func TestAutostartStartsTheDaemonOnce(t *testing.T) {
	ws := newAutostartWorkspace(t)
	first, r := ws.autostartStatus()
	if !first.Daemon.Running || first.Daemon.PID == 0 {
		t.Fatalf("the first command did not go through the daemon it started:\n%s", r)
	}
	if !strings.Contains(r.stderr, "started ckptd (pid "+strconv.Itoa(first.Daemon.PID)+")") {
		t.Errorf("the first command does not say it started ckptd:\n%s", r)
	}
	if first.Files != 2 {
		t.Errorf("files = %d, want 2", first.Files)
	}
	second, r := ws.autostartStatus()
	if !second.Daemon.Running || second.Daemon.PID != first.Daemon.PID {
		t.Fatalf("the second command: daemon %+v, want the running pid %d:\n%s", second.Daemon, first.Daemon.PID, r)
	}
	if strings.Contains(r.stderr, "started ckptd") {
		t.Errorf("the second command started a daemon again:\n%s", r)
	}
	if pids := daemonPIDs(ws.state); len(pids) != 1 {
		t.Errorf("ckptd processes for the state directory: %v, want one", pids)
	}
	log, err := os.ReadFile(filepath.Join(ws.state, "ckptd.log"))
	if err != nil || !bytes.Contains(log, []byte("ckptd started")) {
		t.Errorf("the daemon's log %s: %v\n%s", filepath.Join(ws.state, "ckptd.log"), err, log)
	}
	// The daemon records what changes from now on, with no command running.
	ws.write("util.go", "package main\n")
	out := ws.ckptOK("status")
	if !strings.Contains(out, "util.go") || !strings.Contains(out, "Daemon running") {
		t.Errorf("status after an edit:\n%s", out)
	}
}

// Commands started at the same moment start one daemon between them: the
// losers hand over and exit, every command answers through the winner.
func TestAutostartConcurrentCommandsStartOneDaemon(t *testing.T) {
	ws := newAutostartWorkspace(t)
	const n = 4
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = ws.ckptResult("status", "--json")
		}()
	}
	wg.Wait()
	pid := 0
	for _, r := range results {
		var s autostartStatus
		if r.code != 0 || decodeOne(r.stdout, &s) != nil {
			t.Fatalf("a concurrent status failed:\n%s", r)
		}
		if !s.Daemon.Running {
			t.Fatalf("a concurrent status went embedded:\n%s", r)
		}
		if pid == 0 {
			pid = s.Daemon.PID
		}
		if s.Daemon.PID != pid {
			t.Errorf("two daemons answered: pids %d and %d", pid, s.Daemon.PID)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for len(daemonPIDs(ws.state)) > 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if pids := daemonPIDs(ws.state); len(pids) != 1 || pids[0] != pid {
		t.Fatalf("ckptd processes left: %v, want only %d", pids, pid)
	}
	log, _ := os.ReadFile(filepath.Join(ws.state, "ckptd.log"))
	if c := bytes.Count(log, []byte("ckptd started")); c != 1 {
		t.Errorf("the log shows %d daemons started, want 1:\n%s", c, log)
	}
	if bytes.Contains(log, []byte("already")) || bytes.Contains(log, []byte("level=ERROR")) {
		t.Errorf("a losing ckptd was not quiet:\n%s", log)
	}
}

// autostart off (environment or the user's config file) keeps ckpt
// embedded; a workspace's ckpt.yaml may not decide it.
func TestAutostartOff(t *testing.T) {
	ws := newAutostartWorkspace(t)
	s, r := ws.autostartStatus("CKPT_AUTOSTART=0")
	if s.Daemon.Running || strings.Contains(r.stderr, "started") {
		t.Fatalf("CKPT_AUTOSTART=0 started a daemon:\n%s", r)
	}
	cfgDir := filepath.Join(ws.home, ".config", "ckpt")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "ckpt.yaml"), []byte("autostart: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// CKPT_AUTOSTART empty counts as unset: the user's file decides.
	if s, r = ws.autostartStatus("CKPT_AUTOSTART="); s.Daemon.Running {
		t.Fatalf("autostart: false in the user's file started a daemon:\n%s", r)
	}
	if pids := daemonPIDs(ws.state); len(pids) != 0 {
		t.Fatalf("ckptd running with autostart off: %v", pids)
	}
	ws.write("ckpt.yaml", "autostart: true\n")
	r = ws.ckptResult("status")
	if r.code != 2 || !strings.Contains(r.stderr, "autostart") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("a workspace ckpt.yaml setting autostart: want exit 2 and one line naming it:\n%s", r)
	}
	if pids := daemonPIDs(ws.state); len(pids) != 0 {
		t.Fatalf("a workspace's ckpt.yaml started ckptd: %v", pids)
	}
}

// With a systemd user unit for ckptd installed, ckpt leaves starting it
// to systemd and says how.
func TestAutostartNotWithASystemdUnit(t *testing.T) {
	ws := newAutostartWorkspace(t)
	unit := filepath.Join(ws.home, ".config", "systemd", "user", "ckptd.service")
	if err := os.MkdirAll(filepath.Dir(unit), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unit, []byte("[Service]\nExecStart=/bin/true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, r := ws.autostartStatus()
	if s.Daemon.Running || strings.Contains(r.stderr, "started") {
		t.Fatalf("ckpt started a daemon although a systemd unit is installed:\n%s", r)
	}
	if s.Daemon.StartHint != "systemctl --user start ckptd" {
		t.Errorf("start_hint = %q, want the systemctl command", s.Daemon.StartHint)
	}
	if out := ws.ckptOK("status"); !strings.Contains(out, "start one with: systemctl --user start ckptd") {
		t.Errorf("status does not say how to start the unit:\n%s", out)
	}
	if pids := daemonPIDs(ws.state); len(pids) != 0 {
		t.Fatalf("ckptd running: %v", pids)
	}
}

// daemonPIDs are the running ckptd processes for stateDir.
func daemonPIDs(stateDir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if filepath.Base(args[0]) != "ckptd" || len(args) < 2 || args[1] != "watch" || !zombieFree(pid) {
			continue
		}
		for i := range args[:len(args)-1] {
			if args[i] == "--state-dir" && args[i+1] == stateDir {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// zombieFree reports whether pid is running, not a zombie.
func zombieFree(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, after, ok := bytes.Cut(b, []byte(") "))
	return ok && len(after) > 0 && after[0] != 'Z'
}

// stopDaemons stops the daemons a test's commands started (SIGTERM, then
// SIGKILL after 60s: a big workspace's store takes a while to close).
func stopDaemons(t *testing.T, stateDir string) {
	t.Helper()
	pids := daemonPIDs(stateDir)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(time.Minute)
	for len(daemonPIDs(stateDir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range daemonPIDs(stateDir) {
		t.Errorf("ckptd %d did not stop within 60s of SIGTERM; killed", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
