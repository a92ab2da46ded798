package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ckptdev/ckpt/fault"
)

// Error is a bad config value, an unknown key or an unreadable config file.
// It is of kind fault.Invalid (exit code 2).
type Error struct {
	Key    string // e.g. "max_file_size"; empty when the whole source is bad
	Source string // file path, "env CKPT_MAX_FILE_SIZE" or "flag --max-file-size"
	Err    error
}

// Error returns one line, e.g.
//
//	config: max_file_size in /w/ckpt.yaml: invalid size "abc" (use bytes or units like 50MiB)
func (e *Error) Error() string {
	msg := oneLine(fmt.Sprint(e.Err))
	switch {
	case e.Key != "" && e.Source != "":
		return fmt.Sprintf("config: %s in %s: %s", e.Key, e.Source, msg)
	case e.Key != "":
		return fmt.Sprintf("config: %s: %s", e.Key, msg)
	case e.Source != "":
		return fmt.Sprintf("config: %s: %s", e.Source, msg)
	}
	return "config: " + msg
}

// oneLine joins a multi-line message (YAML errors have one line per
// problem) into one line.
func oneLine(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(s), "\n") {
		l = strings.TrimSpace(l)
		if i > 0 && l != "" {
			if strings.HasSuffix(b.String(), ":") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is makes every config error of kind fault.Invalid: the user's bad input.
func (e *Error) Is(target error) bool { return target == fault.Invalid }

var errUnknownKey = errors.New("unknown key")
