package config

import (
	"errors"
	"net/url"
	"strings"

	"github.com/ckptdev/ckpt/fault"
)

// ErrNoRemote: a command needs a remote and none is configured.
var ErrNoRemote = fault.Sentinel(fault.Invalid, "no remote configured (set remote: s3://bucket/prefix in ~/.config/ckpt/ckpt.yaml, CKPT_REMOTE or --remote)")

// parseRemote reads remote: "" (none) or s3://bucket[/prefix].
func parseRemote(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return nil, errors.New("invalid remote " + quote(s) + " (use s3://bucket[/prefix])")
	}
	return s, nil
}

// parseText reads a single string value, trimmed ("" allowed).
func parseText(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	return strings.TrimSpace(s), nil
}

// parseOptionalPath is parsePath where "" means none.
func parseOptionalPath(raw any, base, home string) (any, error) {
	if s, err := scalar(raw); err != nil || strings.TrimSpace(s) == "" {
		return "", err
	}
	return parsePath(raw, base, home)
}

// parseRate reads a size per second; 0 means unbounded.
func parseRate(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(s) == "0" {
		return int64(0), nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errors.New("a rate must not be negative")
	}
	return n, nil
}

func quote(s string) string { return "\"" + s + "\"" }
