package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A key is one config setting: its name in files (and, transformed, in the
// environment and flags), its default and how a raw value becomes a typed one.
type key struct {
	name  string
	def   any // typed default; nil when computed (state_dir, socket)
	parse func(raw any, base, home string) (any, error)
	set   func(c *Config, v any)
}

// keys lists every key, in the order ckpt.yaml documents them.
var keys = []key{
	{"state_dir", nil, parsePath, func(c *Config, v any) { c.StateDir = v.(string) }},
	{"socket", nil, parsePath, func(c *Config, v any) { c.Socket = v.(string) }},
	{"ignore", []string{}, parseList, func(c *Config, v any) { c.Ignore = v.([]string) }},
	{"max_file_size", int64(50 << 20), parseSize, func(c *Config, v any) { c.MaxFileSize = v.(int64) }},
	{"debounce", 20 * time.Millisecond, parseDur, func(c *Config, v any) { c.Debounce = v.(time.Duration) }},
	{"max_delay", 500 * time.Millisecond, parseDur, func(c *Config, v any) { c.MaxDelay = v.(time.Duration) }},
	// rescan_interval: the daemon's periodic full re-walk (stat every file,
	// read what differs), which finds changes no inotify event reports
	// (writes through a shared memory mapping); 0 = off.
	{"rescan_interval", 15 * time.Minute, parseDur, func(c *Config, v any) { c.RescanInterval = v.(time.Duration) }},
	{"sync_timeout", 30 * time.Second, parseDur, func(c *Config, v any) { c.SyncTimeout = v.(time.Duration) }},
	{"lock_timeout", 30 * time.Second, parseDur, func(c *Config, v any) { c.LockTimeout = v.(time.Duration) }},
	{"queue_size", 65536, parseQueue, func(c *Config, v any) { c.QueueSize = v.(int) }},
	{"log_level", "info", parseLevel, func(c *Config, v any) { c.LogLevel = v.(string) }},
	// retention, retention_size: how long checkpoints are kept, and the
	// disk a workspace's store may take before the oldest go sooner; 0
	// turns either off.
	{"retention", 30 * 24 * time.Hour, parseDur, func(c *Config, v any) { c.Retention = v.(time.Duration) }},
	{"retention_size", int64(2 << 30), parseSize, func(c *Config, v any) { c.RetentionSize = v.(int64) }},
	{"ui_addr", "127.0.0.1:0", parseUIAddr, func(c *Config, v any) { c.UiAddr = v.(string) }},
	{"autostart", true, parseBool, func(c *Config, v any) { c.Autostart = v.(bool) }},
	{"remote", "", parseRemote, func(c *Config, v any) { c.Remote = v.(string) }},
	{"remote_endpoint", "", parseText, func(c *Config, v any) { c.RemoteEndpoint = v.(string) }},
	{"remote_region", "", parseText, func(c *Config, v any) { c.RemoteRegion = v.(string) }},
	{"remote_key_file", "", parseOptionalPath, func(c *Config, v any) { c.RemoteKeyFile = v.(string) }},
	{"remote_name", "", parseText, func(c *Config, v any) { c.RemoteName = v.(string) }},
	{"remote_bandwidth", int64(0), parseRate, func(c *Config, v any) { c.RemoteBandwidth = v.(int64) }},
}

func lookupKey(name string) *key {
	for i := range keys {
		if keys[i].name == name {
			return &keys[i]
		}
	}
	return nil
}

func keyNames() string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// scalar turns a single YAML, env or flag value into text.
func scalar(raw any) (string, error) {
	switch v := raw.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case float32:
		return strconv.FormatFloat(float64(v), 'f', -1, 32), nil
	case []any, []string:
		return "", errors.New("expected a single value, not a list")
	case map[string]any, map[any]any:
		return "", errors.New("expected a single value, not a map")
	}
	return fmt.Sprint(raw), nil
}

// parsePath expands "~" and makes a path absolute against base ("" = the
// current directory).
func parsePath(raw any, base, home string) (any, error) {
	s, ok := raw.(string)
	if !ok {
		return nil, fmt.Errorf("expected a path, got %v", raw)
	}
	if s == "" {
		return nil, errors.New("must not be empty")
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		if home == "" {
			return nil, fmt.Errorf("cannot expand %q: HOME is not set", s)
		}
		s = filepath.Join(home, s[1:])
	}
	if filepath.IsAbs(s) {
		return filepath.Clean(s), nil
	}
	if base != "" {
		return filepath.Join(base, s), nil
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return nil, fmt.Errorf("resolve %q: %w", s, err)
	}
	return abs, nil
}

// parseList takes a YAML list of patterns, a []string from a slice flag, or
// one string (a single pattern; env and flag strings are split before).
func parseList(raw any, _, _ string) (any, error) {
	out := []string{}
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	switch v := raw.(type) {
	case string:
		add(v)
	case []string:
		for _, s := range v {
			add(s)
		}
	case []any:
		for _, e := range v {
			s, err := scalar(e)
			if err != nil {
				return nil, fmt.Errorf("expected a list of patterns: %w", err)
			}
			add(s)
		}
	default:
		return nil, fmt.Errorf("expected a list of patterns, got %v", raw)
	}
	return out, nil
}

func parseSize(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	n, err := ParseSize(s)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("size %q must be greater than 0", s)
	}
	return n, nil
}

func parseDur(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	d, err := ParseDuration(s)
	if err != nil {
		return nil, err
	}
	if d < 0 {
		return nil, fmt.Errorf("duration %q must not be negative", s)
	}
	return d, nil
}

func parseQueue(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("invalid number %q (want a positive integer)", s)
	}
	return n, nil
}

// parseBool takes true/false, yes/no, on/off or 1/0 (YAML gives a bool).
func parseBool(raw any, _, _ string) (any, error) {
	if b, ok := raw.(bool); ok {
		return b, nil
	}
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return nil, fmt.Errorf("invalid boolean %q (use true or false)", s)
}

func parseLevel(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	switch l := strings.ToLower(strings.TrimSpace(s)); l {
	case "debug", "info", "warn", "error":
		return l, nil
	}
	return nil, fmt.Errorf("invalid log level %q (use debug, info, warn or error)", s)
}

// homeDir is $HOME from getenv, or the OS's idea of it when reading the real
// environment.
func homeDir(getenv func(string) string, real bool) string {
	if h := getenv("HOME"); h != "" || !real {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}
