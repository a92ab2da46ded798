package install

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ckptdev/ckpt/fault"
)

// Layout is how a runtime nests its hook handlers under "hooks".
type Layout int

const (
	// Grouped is Claude Code's layout, also used by Codex and Gemini CLI:
	// "hooks": {EVENT: [{"matcher": M, "hooks": [{"type": "command",
	// "command": C, "timeout": T}]}]}.
	Grouped Layout = iota
	// Flat is Cursor's: "version": 1, "hooks": {EVENT: [{"command": C,
	// "matcher": M, "timeout": T}]}.
	Flat
)

// Hook is one event ckpt registers for.
type Hook struct {
	Event string
	// Matcher filters the event's tool names; "" registers no matcher
	// (every tool, or an event that has none).
	Matcher string
	// Timeout is in the runtime's unit (TimeoutUnit); 0 sets none.
	Timeout int
}

// Spec describes one runtime's hook settings.
type Spec struct {
	// Runtime is the name in `ckpt hook RUNTIME` and `ckpt integrate
	// RUNTIME`.
	Runtime string
	// ProjectFile is the settings file relative to a project's root,
	// UserFile relative to the home directory.
	ProjectFile, UserFile string
	Layout                Layout
	// TimeoutUnit names the unit of Hook.Timeout ("s" or "ms").
	TimeoutUnit string
	// Name, when set, is written as each handler's "name" (Gemini CLI
	// shows it in /hooks).
	Name string
	// TopLevel are keys the file must have (Cursor's "version"): set
	// when absent, never changed.
	TopLevel map[string]any
	Hooks    []Hook
}

// File is the settings file for a project root or a home directory.
func (s Spec) File(project bool, dir string) string {
	if project {
		return filepath.Join(dir, s.ProjectFile)
	}
	return filepath.Join(dir, s.UserFile)
}

// Command is the command line a settings file runs: the ckpt binary's
// absolute path, quoted for the shell if need be, and `hook RUNTIME`.
func Command(ckpt, runtime string) string {
	return ShellQuote(ckpt) + " hook " + runtime
}

// ShellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:@%+=,.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// IsCkptCommand reports whether a hook command runs `ckpt hook RUNTIME`:
// its first word is a binary named ckpt (by any path), or self (the
// running ckpt, whatever its name) when that is not "", and the next two
// are hook and the runtime.
func IsCkptCommand(command, runtime, self string) bool {
	w := shellWords(command)
	return len(w) >= 3 && (filepath.Base(w[0]) == "ckpt" || self != "" && w[0] == self) && w[1] == "hook" && w[2] == runtime
}

// shellWords splits a command line the way a POSIX shell splits simple
// words: blanks separate, single quotes are literal, double quotes and
// backslashes escape. It is enough to read commands Command wrote.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			inWord = true
			i++
			cur.WriteByte(s[i])
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// MalformedError is a settings file ckpt refuses to touch. It is bad
// input: errors.Is(err, fault.Invalid) holds.
type MalformedError struct {
	Path   string
	Reason string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s: %s; not changed", e.Path, e.Reason)
}

// Unwrap makes the error of kind fault.Invalid.
func (e *MalformedError) Unwrap() error { return fault.Invalid }
