package config

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestPrecedence sets each key at every level in turn, lowest first, and
// checks that the highest level set wins: flag > env > workspace > XDG > default.
func TestPrecedence(t *testing.T) {
	// vals are the values at XDG file, workspace file, env, flag; YAML text
	// for the files. want are the results with 0..4 levels set.
	tests := []struct {
		key  string
		vals [4]string
		want func(e *testEnv) [5]any
	}{
		{"state_dir", [4]string{"/x/state", "/w/state", "/e/state", "/f/state"}, func(e *testEnv) [5]any {
			// A workspace file may not set it: the XDG file's value holds.
			return [5]any{filepath.Join(e.home, ".local/state/ckpt"), "/x/state", "/x/state", "/e/state", "/f/state"}
		}},
		{"socket", [4]string{"/x/s", "/w/s", "/e/s", "/f/s"}, func(e *testEnv) [5]any {
			return [5]any{filepath.Join(e.home, ".local/state/ckpt/ckptd.sock"), "/x/s", "/x/s", "/e/s", "/f/s"}
		}},
		{"ignore", [4]string{"[x1, x2]", "[w1]", "e1, e2", "f1,f2"}, func(*testEnv) [5]any {
			return [5]any{[]string{}, []string{"x1", "x2"}, []string{"w1"}, []string{"e1", "e2"}, []string{"f1", "f2"}}
		}},
		{"max_file_size", [4]string{"1KiB", "2kb", "3 MiB", "4"}, func(*testEnv) [5]any {
			return [5]any{int64(50 << 20), int64(1024), int64(2000), int64(3 << 20), int64(4)}
		}},
		{"debounce", [4]string{"1ms", "2ms", "3ms", "4ms"}, durs(20*time.Millisecond, time.Millisecond)},
		{"max_delay", [4]string{"1s", "2s", "3s", "4s"}, durs(500*time.Millisecond, time.Second)},
		{"rescan_interval", [4]string{"1h", "2h", "3h", "4h"}, durs(15*time.Minute, time.Hour)},
		{"sync_timeout", [4]string{"1m", "2m", "3m", "4m"}, durs(30*time.Second, time.Minute)},
		{"lock_timeout", [4]string{"1s", "2s", "3s", "4s"}, durs(30*time.Second, time.Second)},
		{"retention", [4]string{"1d", "2d", "3d", "4d"}, durs(30*24*time.Hour, 24*time.Hour)},
		{"retention_size", [4]string{"1GiB", "2MiB", "3KiB", "4"}, func(*testEnv) [5]any {
			return [5]any{int64(2 << 30), int64(1 << 30), int64(2 << 20), int64(3 << 10), int64(4)}
		}},
		{"queue_size", [4]string{"1", "2", "3", "4"}, func(*testEnv) [5]any { return [5]any{65536, 1, 2, 3, 4} }},
		{"log_level", [4]string{"debug", "WARN", "error", "debug"}, func(*testEnv) [5]any {
			return [5]any{"info", "debug", "warn", "error", "debug"}
		}},
	}
	levels := []string{"default", "xdg_file", "workspace_file", "env", "flag"}
	for _, tt := range tests {
		for n, level := range levels {
			t.Run(tt.key+"/"+level, func(t *testing.T) {
				e := newTestEnv(t)
				if n >= 1 {
					writeFile(t, e.xdgFile, tt.key+": "+tt.vals[0]+"\n")
				}
				if n >= 2 && !UserOnly(tt.key) {
					writeFile(t, e.wsFile, tt.key+": "+tt.vals[1]+"\n")
				}
				if n >= 3 {
					e.vars[envName(tt.key)] = tt.vals[2]
				}
				var args []string
				if n >= 4 {
					args = []string{"--" + flagName(tt.key) + "=" + tt.vals[3]}
				}
				c, err := e.load(stringFlags(t, args...))
				if err != nil {
					t.Fatal(err)
				}
				if got, want := field(c, tt.key), tt.want(e)[n]; !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", tt.key, got, want)
				}
			})
		}
	}
}

// durs returns the default followed by 1..4 units.
func durs(def, unit time.Duration) func(*testEnv) [5]any {
	return func(*testEnv) [5]any { return [5]any{def, 1 * unit, 2 * unit, 3 * unit, 4 * unit} }
}

func TestLoadDefaults(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		wantDir  func(home string) string
		noHome   bool
		xdgState string
	}{
		{name: "home only", wantDir: func(h string) string { return filepath.Join(h, ".local/state/ckpt") }},
		{name: "XDG_STATE_HOME", vars: map[string]string{"XDG_STATE_HOME": "/xdg/state"},
			wantDir: func(string) string { return "/xdg/state/ckpt" }},
		{name: "relative XDG_STATE_HOME is ignored", vars: map[string]string{"XDG_STATE_HOME": "rel"},
			wantDir: func(h string) string { return filepath.Join(h, ".local/state/ckpt") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			for k, v := range tt.vars {
				e.vars[k] = v
			}
			c, err := e.load(nil)
			if err != nil {
				t.Fatal(err)
			}
			want := &Config{
				StateDir:       tt.wantDir(e.home),
				Socket:         filepath.Join(tt.wantDir(e.home), "ckptd.sock"),
				Ignore:         []string{},
				MaxFileSize:    50 << 20,
				Debounce:       20 * time.Millisecond,
				MaxDelay:       500 * time.Millisecond,
				RescanInterval: 15 * time.Minute,
				SyncTimeout:    30 * time.Second,
				LockTimeout:    30 * time.Second,
				QueueSize:      65536,
				LogLevel:       "info",
				Retention:      30 * 24 * time.Hour,
				RetentionSize:  2 << 30,
				UiAddr:         "127.0.0.1:0",
				Autostart:      true,
			}
			if !reflect.DeepEqual(c, want) {
				t.Errorf("Load = %+v\nwant %+v", c, want)
			}
		})
	}
}

func TestDefaultUsesProcessEnv(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	c := Default()
	if want := filepath.Join(home, ".local/state/ckpt"); c.StateDir != want {
		t.Errorf("StateDir = %q, want %q", c.StateDir, want)
	}
	if want := filepath.Join(c.StateDir, "ckptd.sock"); c.Socket != want {
		t.Errorf("Socket = %q, want %q", c.Socket, want)
	}
}

func TestFilesAndXDGConfigHome(t *testing.T) {
	t.Run("both files, lowest first", func(t *testing.T) {
		e := newTestEnv(t)
		writeFile(t, e.xdgFile, "debounce: 1ms\n")
		writeFile(t, e.wsFile, "max_delay: 1s\n")
		c, err := e.load(nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{e.xdgFile, e.wsFile}; !reflect.DeepEqual(c.Files, want) {
			t.Errorf("Files = %q, want %q", c.Files, want)
		}
		if c.Debounce != time.Millisecond || c.MaxDelay != time.Second {
			t.Errorf("keys from different files not merged: %v %v", c.Debounce, c.MaxDelay)
		}
	})
	t.Run("XDG_CONFIG_HOME", func(t *testing.T) {
		e := newTestEnv(t)
		dir := t.TempDir()
		e.vars["XDG_CONFIG_HOME"] = dir
		writeFile(t, e.xdgFile, "debounce: 1ms\n") // ~/.config: not read now
		writeFile(t, filepath.Join(dir, "ckpt", "ckpt.yaml"), "debounce: 2ms\n")
		c, err := e.load(nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Debounce != 2*time.Millisecond {
			t.Errorf("Debounce = %v, want 2ms from $XDG_CONFIG_HOME", c.Debounce)
		}
	})
	t.Run("no files", func(t *testing.T) {
		e := newTestEnv(t)
		c, err := Load(Options{Env: e.getenv})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Files) != 0 {
			t.Errorf("Files = %q, want none", c.Files)
		}
	})
}

func TestIgnoreLists(t *testing.T) {
	tests := []struct {
		name    string
		xdg, ws string
		env     string
		want    []string
	}{
		{name: "workspace replaces XDG", xdg: "ignore: [a, b]", ws: "ignore: [c]", want: []string{"c"}},
		{name: "empty list clears", xdg: "ignore: [a]", ws: "ignore: []", want: []string{}},
		{name: "null counts as unset", xdg: "ignore: [a]", ws: "ignore:", want: []string{"a"}},
		{name: "single string is one pattern", ws: "ignore: '*.log'", want: []string{"*.log"}},
		{name: "block list", ws: "ignore:\n  - /build/\n  - '!keep.log'\n", want: []string{"/build/", "!keep.log"}},
		{name: "null and empty patterns are dropped", ws: "ignore: [a, ~, '']", want: []string{"a"}},
		{name: "env comma list replaces files", ws: "ignore: [c]", env: " x , y,,", want: []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			if tt.xdg != "" {
				writeFile(t, e.xdgFile, tt.xdg+"\n")
			}
			if tt.ws != "" {
				writeFile(t, e.wsFile, tt.ws+"\n")
			}
			e.vars["CKPT_IGNORE"] = tt.env
			c, err := e.load(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Ignore, tt.want) {
				t.Errorf("Ignore = %q, want %q", c.Ignore, tt.want)
			}
		})
	}
}

func TestTypedFlags(t *testing.T) {
	e := newTestEnv(t)
	e.vars["CKPT_DEBOUNCE"] = "7ms"
	e.vars["CKPT_QUEUE_SIZE"] = "7"
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.Duration("debounce", time.Hour, "")
	fs.Int64("max-file-size", 1, "")
	fs.Int("queue-size", 99, "") // not set: env wins
	fs.String("ignore", "", "")
	if err := fs.Parse([]string{"--debounce", "5ms", "--max-file-size", "4096", "--ignore", "a,b"}); err != nil {
		t.Fatal(err)
	}
	c, err := e.load(fs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Debounce != 5*time.Millisecond || c.MaxFileSize != 4096 || c.QueueSize != 7 {
		t.Errorf("got debounce %v, max_file_size %d, queue_size %d; want 5ms, 4096, 7", c.Debounce, c.MaxFileSize, c.QueueSize)
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(c.Ignore, want) {
		t.Errorf("Ignore = %q, want %q", c.Ignore, want)
	}
}

func TestCaseInsensitiveKeys(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.wsFile, "Max_File_Size: 1KiB\nLOG_LEVEL: Debug\n")
	c, err := e.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxFileSize != 1024 || c.LogLevel != "debug" {
		t.Errorf("got %d %q, want 1024 \"debug\"", c.MaxFileSize, c.LogLevel)
	}
}

func TestYAMLNumbers(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.wsFile, "max_file_size: 1048576\nqueue_size: 1e3\nretention: 0\nrescan_interval: 0\n")
	c, err := e.load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxFileSize != 1<<20 || c.QueueSize != 1000 || c.Retention != 0 || c.RescanInterval != 0 {
		t.Errorf("got %d %d %v %v", c.MaxFileSize, c.QueueSize, c.Retention, c.RescanInterval)
	}
}
