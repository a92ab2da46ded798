package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPaths(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		xdg, ws    string
		vars       map[string]string
		args       []string
		wantState  func(e *testEnv) string
		wantSocket func(e *testEnv) string // nil: <state>/ckptd.sock
	}{
		{name: "dot-dot in XDG file", xdg: "state_dir: ../elsewhere\nsocket: s.sock\n",
			wantState:  func(e *testEnv) string { return filepath.Join(e.home, ".config/elsewhere") },
			wantSocket: func(e *testEnv) string { return filepath.Join(e.home, ".config/ckpt/s.sock") }},
		{name: "relative in XDG file is relative to that file", xdg: "state_dir: state\n",
			wantState: func(e *testEnv) string { return filepath.Join(e.home, ".config/ckpt/state") }},
		{name: "tilde slash", xdg: "state_dir: ~/st\n",
			wantState: func(e *testEnv) string { return filepath.Join(e.home, "st") }},
		{name: "bare tilde", xdg: "state_dir: '~'\n",
			wantState: func(e *testEnv) string { return e.home }},
		{name: "tilde in env", vars: map[string]string{"CKPT_SOCKET": "~/run/s.sock"},
			wantState:  func(e *testEnv) string { return filepath.Join(e.home, ".local/state/ckpt") },
			wantSocket: func(e *testEnv) string { return filepath.Join(e.home, "run/s.sock") }},
		{name: "relative env is relative to the current directory", vars: map[string]string{"CKPT_STATE_DIR": "rel"},
			wantState: func(*testEnv) string { return filepath.Join(cwd, "rel") }},
		{name: "tilde in flag", args: []string{"--state-dir=~/f"},
			wantState: func(e *testEnv) string { return filepath.Join(e.home, "f") }},
		{name: "absolute is cleaned", xdg: "state_dir: /a/b/../c/\n",
			wantState: func(*testEnv) string { return "/a/c" }},
		{name: "socket default follows state_dir from a file", xdg: "state_dir: /from/xdg\n",
			wantState: func(*testEnv) string { return "/from/xdg" }},
		{name: "socket set does not follow state_dir", xdg: "socket: /s.sock\n", vars: map[string]string{"CKPT_STATE_DIR": "/e"},
			wantState:  func(*testEnv) string { return "/e" },
			wantSocket: func(*testEnv) string { return "/s.sock" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			if tt.xdg != "" {
				writeFile(t, e.xdgFile, tt.xdg)
			}
			if tt.ws != "" {
				writeFile(t, e.wsFile, tt.ws)
			}
			for k, v := range tt.vars {
				e.vars[k] = v
			}
			c, err := e.load(stringFlags(t, tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.wantState(e); c.StateDir != want {
				t.Errorf("StateDir = %q, want %q", c.StateDir, want)
			}
			wantSocket := filepath.Join(c.StateDir, "ckptd.sock")
			if tt.wantSocket != nil {
				wantSocket = tt.wantSocket(e)
			}
			if c.Socket != wantSocket {
				t.Errorf("Socket = %q, want %q", c.Socket, wantSocket)
			}
		})
	}
}

func TestTildeWithoutHome(t *testing.T) {
	e := newTestEnv(t)
	delete(e.vars, "HOME")
	e.vars["CKPT_STATE_DIR"] = "~/x"
	c, err := e.load(nil)
	checkError(t, c, err, "state_dir", "env CKPT_STATE_DIR", "HOME is not set")
}
