package config

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestErrorMessage(t *testing.T) {
	_, perr := ParseSize("abc")
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"key and file", &Error{Key: "max_file_size", Source: "/w/ckpt.yaml", Err: perr},
			`config: max_file_size in /w/ckpt.yaml: invalid size "abc" (use bytes or units like 50MiB)`},
		{"env", &Error{Key: "debounce", Source: "env CKPT_DEBOUNCE", Err: errors.New("bad")},
			`config: debounce in env CKPT_DEBOUNCE: bad`},
		{"whole file", &Error{Source: "/w/ckpt.yaml", Err: errors.New("malformed YAML: x")},
			`config: /w/ckpt.yaml: malformed YAML: x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if !errors.Is(tt.err, tt.err.Err) {
				t.Error("Unwrap does not reach Err")
			}
		})
	}
}

// TestBadValues puts a bad value in one source and checks the *Error names
// the key and that source.
func TestBadValues(t *testing.T) {
	const (
		xdg = iota
		ws
		env
		flag
	)
	tests := []struct {
		name    string
		where   int
		key     string
		value   string // YAML text in files
		wantKey string
		wantMsg string
	}{
		{"size in XDG file", xdg, "max_file_size", "abc", "max_file_size", `invalid size "abc"`},
		{"size in workspace file", ws, "max_file_size", "12XB", "max_file_size", "invalid size"},
		{"size in env", env, "max_file_size", "-5", "max_file_size", "invalid size"},
		{"size in flag", flag, "max_file_size", "huge", "max_file_size", "invalid size"},
		{"zero size", ws, "max_file_size", "0", "max_file_size", "greater than 0"},
		{"size too large", env, "max_file_size", "9000000TiB", "max_file_size", "too large"},
		{"size as a list", ws, "max_file_size", "[1, 2]", "max_file_size", "not a list"},
		{"duration in XDG file", xdg, "debounce", "fast", "debounce", "invalid duration"},
		{"duration without unit", ws, "max_delay", "500", "max_delay", "invalid duration"},
		{"negative duration in env", env, "sync_timeout", "-1s", "sync_timeout", "must not be negative"},
		{"fractional days in flag", flag, "retention", "1.5d", "retention", "invalid duration"},
		{"duration as a map", ws, "lock_timeout", "{a: 1}", "lock_timeout.a", "unknown key"},
		{"queue size zero", flag, "queue_size", "0", "queue_size", "positive integer"},
		{"queue size text", xdg, "queue_size", "lots", "queue_size", "positive integer"},
		{"log level", ws, "log_level", "loud", "log_level", "invalid log level"},
		{"log level in env", env, "log_level", "verbose", "log_level", "invalid log level"},
		{"empty state_dir", xdg, "state_dir", `""`, "state_dir", "must not be empty"},
		{"empty socket flag", flag, "socket", "", "socket", "must not be empty"},
		{"state_dir not a string", xdg, "state_dir", "[a]", "state_dir", "expected a path"},
		{"ignore not a list", ws, "ignore", "5", "ignore", "expected a list of patterns"},
		{"ignore list of lists", xdg, "ignore", "[[a]]", "ignore", "not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			var args []string
			var wantSource string
			switch tt.where {
			case xdg:
				writeFile(t, e.xdgFile, tt.key+": "+tt.value+"\n")
				wantSource = e.xdgFile
			case ws:
				writeFile(t, e.wsFile, tt.key+": "+tt.value+"\n")
				wantSource = e.wsFile
			case env:
				e.vars[envName(tt.key)] = tt.value
				wantSource = "env " + envName(tt.key)
			case flag:
				args = []string{"--" + flagName(tt.key) + "=" + tt.value}
				wantSource = "flag --" + flagName(tt.key)
			}
			c, err := e.load(stringFlags(t, args...))
			checkError(t, c, err, tt.wantKey, wantSource, tt.wantMsg)
		})
	}
}

func checkError(t *testing.T, c *Config, err error, key, source, msg string) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("Load = %+v, %v; want *Error", c, err)
	}
	if ce.Key != key || ce.Source != source {
		t.Errorf("Key, Source = %q, %q; want %q, %q", ce.Key, ce.Source, key, source)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("Error() = %q, want it to contain %q", err, msg)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("Error() is more than one line: %q", err)
	}
}

func TestBadFiles(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantKey  string
		wantMsg  string
		inXDG    bool
		wantKind error
	}{
		{name: "unclosed list", content: "ignore: [a, b\n", wantMsg: "malformed YAML"},
		{name: "tab indentation", content: "ignore:\n\t- a\n", wantMsg: "malformed YAML"},
		{name: "top-level list", content: "- a\n- b\n", wantMsg: "malformed YAML"},
		{name: "duplicate key", content: "debounce: 1ms\ndebounce: 2ms\n", wantMsg: "malformed YAML"},
		{name: "unknown key", content: "debounce: 1ms\nmax_filesize: 1MiB\n", wantKey: "max_filesize",
			wantMsg: "unknown key (known keys: state_dir, socket,", wantKind: errUnknownKey},
		{name: "unknown key in XDG file", content: "stat_dir: /x\n", wantKey: "stat_dir", inXDG: true,
			wantMsg: "unknown key", wantKind: errUnknownKey},
		{name: "nested unknown key", content: "watcher:\n  debounce: 1ms\n", wantKey: "watcher.debounce",
			wantMsg: "unknown key", wantKind: errUnknownKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			path := e.wsFile
			if tt.inXDG {
				path = e.xdgFile
			}
			writeFile(t, path, tt.content)
			c, err := e.load(nil)
			checkError(t, c, err, tt.wantKey, path, tt.wantMsg)
			if tt.wantKind != nil && !errors.Is(err, tt.wantKind) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantKind)
			}
		})
	}
}

// A bad value is reported even when a higher source overrides it: it would
// surface as soon as the override goes away.
func TestBadValueOverriddenIsStillAnError(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.wsFile, "debounce: soon\n")
	e.vars["CKPT_DEBOUNCE"] = "5ms"
	c, err := e.load(nil)
	checkError(t, c, err, "debounce", e.wsFile, "invalid duration")
}

func TestConfigFileIsADirectory(t *testing.T) {
	e := newTestEnv(t)
	if err := os.MkdirAll(e.wsFile, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := e.load(nil)
	checkError(t, c, err, "", e.wsFile, "is a directory")
}
