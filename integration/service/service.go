package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckptdev/ckpt/internal/fsutil"
)

// ServiceName is the systemd user unit's file name.
const Name = "ckptd.service"

// ServiceOptions describe the systemd user unit that runs the daemon.
type Options struct {
	Executable string            // absolute path of ckptd
	Dirs       []string          // workspaces (absolute) for ckptd watch
	Env        map[string]string // Environment= lines, e.g. CKPT_STATE_DIR
}

// ServiceUnit is the text of the unit: ckptd watch DIR... restarted on
// failure, logging to the journal through stderr.
func Unit(o Options) (string, error) {
	if !filepath.IsAbs(o.Executable) {
		return "", fmt.Errorf("the unit needs ckptd's absolute path, not %q", o.Executable)
	}
	exec := []string{systemdQuote(o.Executable), "watch"}
	for _, d := range o.Dirs {
		if !filepath.IsAbs(d) {
			return "", fmt.Errorf("the unit needs absolute workspace paths, not %q", d)
		}
		exec = append(exec, systemdQuote(d))
	}
	var b strings.Builder
	b.WriteString("# Written by ckptd install-service. Rewrite it with: ckptd install-service DIR...\n")
	b.WriteString("[Unit]\n")
	b.WriteString("Description=ckpt daemon: checkpoints, drift and exact undo for watched workspaces\n\n")
	b.WriteString("[Service]\n")
	b.WriteString("Type=simple\n")
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(exec, " "))
	for _, k := range sortedKeys(o.Env) {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(k+"="+o.Env[k]))
	}
	b.WriteString("Restart=on-failure\n")
	b.WriteString("RestartSec=2s\n")
	b.WriteString("KillSignal=SIGTERM\n")
	b.WriteString("TimeoutStopSec=60s\n")
	b.WriteString("StandardOutput=journal\n")
	b.WriteString("StandardError=journal\n\n")
	b.WriteString("[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return b.String(), nil
}

// ServicePath is where the user unit goes:
// $XDG_CONFIG_HOME/systemd/user/ckptd.service, by default under
// ~/.config. getenv reads the environment (nil: os.Getenv).
func Path(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: cannot place the systemd user unit")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "systemd", "user", Name), nil
}

// WriteService writes the unit text to path atomically, creating its
// directory.
func Write(path, unit string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFile(path, []byte(unit), 0o644)
}

// StartHint says how to start the installed unit.
const StartHint = "systemctl --user start ckptd"

// EnableHint says how to start the unit.
const EnableHint = "systemctl --user daemon-reload && systemctl --user enable --now ckptd"

// systemdQuote makes s one word of a unit's command line or Environment=:
// specifiers (%) and variables ($) are escaped, and a word with spaces,
// quotes or backslashes is double-quoted with C-style escapes.
func systemdQuote(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	s = strings.ReplaceAll(s, "$", "$$")
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
