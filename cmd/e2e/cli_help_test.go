package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestVersion: ckpt version prints this ckpt's version, and the daemon's
// when one answers; --json is one object with version and daemon_version.
func TestVersion(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.start()
		out := ws.ckptOK("version")
		if !regexp.MustCompile(`^ckpt \S+\n`).MatchString(out) {
			t.Errorf("ckpt version: %q, want \"ckpt VERSION\" first", out)
		}
		var v struct {
			Version       string `json:"version"`
			DaemonVersion string `json:"daemon_version"`
		}
		ws.ckptJSON(&v, "version")
		if v.Version == "" || !strings.HasPrefix(out, "ckpt "+v.Version+"\n") {
			t.Errorf("ckpt version --json: version %q; text %q", v.Version, out)
		}
		switch {
		case m == daemon && v.DaemonVersion != v.Version:
			t.Errorf("daemon_version %q, want the daemon's %q", v.DaemonVersion, v.Version)
		case m == daemon && !strings.Contains(out, "ckptd "+v.Version+"\n"):
			t.Errorf("ckpt version with a daemon: %q, want a ckptd line", out)
		case m == embedded && (v.DaemonVersion != "" || strings.Contains(out, "ckptd")):
			t.Errorf("ckpt version with no daemon: %q, %+v", out, v)
		}
	})
}

// TestHelpReadsLikeOtherTools: the root help groups the commands and
// lists the exit codes; every command has examples; the old --n spelling
// of -n still works, and -n is documented as --max-count.
func TestHelpReadsLikeOtherTools(t *testing.T) {
	ws := newWorkspace(t, embedded)
	ws.start()
	help := ws.ckptOK("--help")
	for _, want := range []string{"Inspect the workspace:", "Checkpoints and undo:", "Runs and tools", "Exit codes:", "130  interrupted"} {
		if !strings.Contains(help, want) {
			t.Errorf("ckpt --help lacks %q:\n%s", want, help)
		}
	}
	for _, c := range []string{"status", "checkpoint", "log", "show", "diff", "history", "restore", "undo", "revert",
		"run", "run start", "run end", "tool", "tool start", "tool end", "exec", "hook", "hook claude-code", "hook codex", "hook gemini", "hook cursor", "integrate", "version", "ui", "review", "gc"} {
		h := ws.ckptOK(append(strings.Fields(c), "--help")...)
		if !strings.Contains(h, "Examples:\n  ") || !strings.Contains(h, "Exit codes:") {
			t.Errorf("ckpt %s --help has no examples or exit codes:\n%s", c, h)
		}
	}
	if h := ws.ckptOK("log", "--help"); !strings.Contains(h, "-n, --max-count") || strings.Contains(h, "--n ") {
		t.Errorf("ckpt log --help: want -n, --max-count and no --n:\n%s", h)
	}
	ws.ckptOK("checkpoint", "-m", "one")
	ws.ckptOK("checkpoint", "-m", "two")
	for _, args := range [][]string{{"-n", "1"}, {"--max-count", "1"}, {"--n", "1"}} {
		var l logJSON
		ws.ckptJSON(&l, append([]string{"log"}, args...)...)
		if len(l.Checkpoints) != 1 {
			t.Errorf("ckpt log %s: %d checkpoints, want 1", strings.Join(args, " "), len(l.Checkpoints))
		}
	}
}
