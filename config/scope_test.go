package config

import (
	"errors"
	"strings"
	"testing"
)

// A workspace's ckpt.yaml may not set state_dir or socket, whatever else it
// holds and whatever higher source overrides them: the error names the key
// and the file, and says where the key may be set.
func TestWorkspaceFileMayNotSetUserOnlyKeys(t *testing.T) {
	tests := []struct {
		name, content, key string
		env                map[string]string
	}{
		{name: "socket", content: "socket: /tmp/other.sock\n", key: "socket"},
		{name: "state_dir", content: "state_dir: /tmp/shared\n", key: "state_dir"},
		{name: "both: the first in order", content: "socket: s\nstate_dir: d\n", key: "socket"},
		{name: "with valid keys", content: "ignore: [a]\nstate_dir: ~/x\nmax_file_size: 1KiB\n", key: "state_dir"},
		{name: "case-insensitive", content: "Socket: /s\n", key: "socket"},
		{name: "overridden by env", content: "state_dir: /w\n", key: "state_dir",
			env: map[string]string{"CKPT_STATE_DIR": "/e"}},
		{name: "bad value", content: "socket: [a]\n", key: "socket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			for k, v := range tt.env {
				e.vars[k] = v
			}
			writeFile(t, e.wsFile, tt.content)
			c, err := e.load(nil)
			checkError(t, c, err, tt.key, e.wsFile, "not allowed in a workspace's ckpt.yaml")
			if !errors.Is(err, errUserOnly) {
				t.Errorf("errors.Is(%v, errUserOnly) = false", err)
			}
			for _, hint := range []string{"~/.config/ckpt/ckpt.yaml", envName(tt.key), "--" + flagName(tt.key)} {
				if !strings.Contains(err.Error(), hint) {
					t.Errorf("Error() = %q, want it to name %q", err, hint)
				}
			}
		})
	}
}

// "key:" with no value counts as not set, here too; and the same keys are
// fine in the user's own file.
func TestUserOnlyKeysElsewhere(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.wsFile, "socket:\nignore: [a]\n")
	writeFile(t, e.xdgFile, "state_dir: /mine\nsocket: /mine/s.sock\n")
	c, err := e.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.StateDir != "/mine" || c.Socket != "/mine/s.sock" {
		t.Errorf("StateDir, Socket = %q, %q; want the XDG file's", c.StateDir, c.Socket)
	}
	for _, k := range keys {
		if got, want := UserOnly(k.name), k.name == "state_dir" || k.name == "socket" || k.name == "autostart" || k.name == "remote" || k.name == "remote_endpoint" || k.name == "remote_key_file"; got != want {
			t.Errorf("UserOnly(%q) = %v, want %v", k.name, got, want)
		}
	}
}

// A workspace's ckpt.yaml may not turn autostart on or off; the user's file
// and the environment may.
func TestAutostartIsUserOnly(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.wsFile, "autostart: false\n")
	if _, err := e.load(nil); err == nil || !strings.Contains(err.Error(), "autostart") {
		t.Fatalf("a workspace file setting autostart: err = %v, want one naming autostart", err)
	}
	writeFile(t, e.wsFile, "ignore: [a]\n")
	writeFile(t, e.xdgFile, "autostart: off\n")
	if c, err := e.load(nil); err != nil || c.Autostart {
		t.Fatalf("autostart: off in the user's file: Autostart = %v, %v; want false", c != nil && c.Autostart, err)
	}
	e.vars["CKPT_AUTOSTART"] = "1"
	if c, err := e.load(nil); err != nil || !c.Autostart {
		t.Fatalf("CKPT_AUTOSTART=1: Autostart = %v, %v; want true", c != nil && c.Autostart, err)
	}
	e.vars["CKPT_AUTOSTART"] = "maybe"
	if _, err := e.load(nil); err == nil {
		t.Fatal("CKPT_AUTOSTART=maybe: no error")
	}
}
