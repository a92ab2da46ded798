package config

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
)

// Config is ckpt's typed configuration. Paths are absolute.
type Config struct {
	StateDir       string        // state_dir: stores, logs. Default $XDG_STATE_HOME/ckpt, else ~/.local/state/ckpt
	Socket         string        // socket: default <StateDir>/ckptd.sock
	Ignore         []string      // ignore: extra gitignore-style patterns. Default empty
	MaxFileSize    int64         // max_file_size: bytes (ParseSize). Default 50MiB
	Debounce       time.Duration // debounce: settle delay per path. Default 20ms
	MaxDelay       time.Duration // max_delay: upper bound on coalescing a busy path. Default 500ms
	RescanInterval time.Duration // rescan_interval: periodic safety re-walk by the daemon; 0 disables. Default 15m
	SyncTimeout    time.Duration // sync_timeout: how long a command waits for the daemon to catch up. Default 30s
	LockTimeout    time.Duration // lock_timeout: how long an embedded ckpt waits for another one on the same workspace. Default 30s
	QueueSize      int           // queue_size: in-process event queue length; a full queue triggers a re-walk. Default 65536
	LogLevel       string        // log_level: debug|info|warn|error. Default info
	Retention      time.Duration // retention: checkpoints older than this are pruned (never a pinned one, nor one of the last 24h); 0 keeps them by age. Default 30d
	RetentionSize  int64         // retention_size: a workspace store over this many bytes loses its oldest checkpoints (never a pinned one, nor one of the last hour); 0 = no budget. Default 2GiB
	UiAddr         string        // ui_addr: the web panel's loopback address (ckpt ui). Default 127.0.0.1:0, a free port
	Autostart      bool          // autostart: a command that finds no daemon starts ckptd for the workspace in the background. Default true
	// The remote the workspace replicates to (remote.go). Default none.
	Remote          string // remote: s3://bucket[/prefix]
	RemoteEndpoint  string // remote_endpoint: the S3 server, host[:port] or http(s)://host[:port]; "" is AWS
	RemoteRegion    string // remote_region: the bucket's region; "" lets the client find it
	RemoteKeyFile   string // remote_key_file: encrypt what is uploaded with this 32-byte key; "" does not
	RemoteName      string // remote_name: the workspace's name in the remote; "" is the root's base name
	RemoteBandwidth int64  // remote_bandwidth: upload bytes per second; 0 is unbounded
	// Files lists the config files that were read, lowest precedence first.
	Files []string
}

// Options says where Load looks.
type Options struct {
	// Workspace is the workspace root; <Workspace>/ckpt.yaml is read if
	// present ("" = none).
	Workspace string
	// Flags may be nil. Flags named like keys with '_' -> '-' (--state-dir,
	// --max-file-size) override the environment, when explicitly set.
	Flags *pflag.FlagSet
	// Env reads the environment (CKPT_*, HOME, XDG_*); nil = os.Getenv.
	Env func(string) string
}

// Default returns the built-in defaults, with paths computed from the
// process environment (HOME, XDG_STATE_HOME).
func Default() *Config {
	return defaults(os.Getenv, homeDir(os.Getenv, true))
}

func defaults(getenv func(string) string, home string) *Config {
	c := &Config{}
	for _, k := range keys {
		if k.def != nil {
			k.set(c, k.def)
		}
	}
	c.Ignore = []string{}
	c.StateDir = defaultStateDir(getenv, home)
	c.Socket = filepath.Join(c.StateDir, "ckptd.sock")
	return c
}

// xdgDir returns $<env> if it is absolute (as the XDG spec requires), else
// home/fallback, else "".
func xdgDir(getenv func(string) string, env, home, fallback string) string {
	if d := getenv(env); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, fallback)
}

func defaultStateDir(getenv func(string) string, home string) string {
	if d := xdgDir(getenv, "XDG_STATE_HOME", home, filepath.Join(".local", "state")); d != "" {
		return filepath.Join(d, "ckpt")
	}
	// No HOME and no XDG_STATE_HOME: a per-user directory under the temp dir.
	return filepath.Join(os.TempDir(), fmt.Sprintf("ckpt-%d", os.Getuid()))
}

// Load reads the configuration: flags over CKPT_<KEY> environment variables
// over <workspace>/ckpt.yaml over $XDG_CONFIG_HOME/ckpt/ckpt.yaml over the
// defaults. Any bad source is an *Error, and so is a workspace file that
// sets a user-only key (UserOnly: state_dir, socket).
func Load(opts Options) (*Config, error) {
	getenv := opts.Env
	if getenv == nil {
		getenv = os.Getenv
	}
	home := homeDir(getenv, opts.Env == nil)

	var files []string
	if d := xdgDir(getenv, "XDG_CONFIG_HOME", home, ".config"); d != "" {
		files = append(files, filepath.Join(d, "ckpt", "ckpt.yaml"))
	}
	if opts.Workspace != "" {
		ws, err := filepath.Abs(opts.Workspace)
		if err != nil {
			return nil, &Error{Source: opts.Workspace, Err: err}
		}
		files = append(files, filepath.Join(ws, "ckpt.yaml"))
	}

	var layers []layer
	var read []string
	for i, f := range files {
		l, ok, err := fileLayer(f)
		if err != nil {
			return nil, err
		}
		if ok && opts.Workspace != "" && i == len(files)-1 {
			if err := checkWorkspaceScope(l); err != nil {
				return nil, err
			}
		}
		if ok {
			layers = append(layers, l)
			read = append(read, f)
		}
	}
	layers = append(layers, envLayer(getenv), flagLayer(opts.Flags))

	// A key is replaced as a whole by the next layer that sets it.
	c := defaults(getenv, home)
	socketSet := false
	for _, l := range layers {
		typed, err := l.decode(home)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if val, ok := typed[k.name]; ok {
				k.set(c, val)
				socketSet = socketSet || k.name == "socket"
			}
		}
	}
	if !socketSet {
		c.Socket = filepath.Join(c.StateDir, "ckptd.sock")
	}
	c.Files = read
	return c, nil
}
