// Package config owns ckpt's settings: the keys, their defaults, where they
// are read from and in which order. Everything else receives a typed
// *Config from Load. ckpt and ckptd read the same files through the same
// Load: the YAML is parsed with go.yaml.in/yaml/v3 and merged here, without
// viper (whose package initialisation and parsing were a measurable part
// of every start of ckpt).
//
// # Precedence
//
// For every key the first source that sets it wins:
//
//  1. a command-line flag named like the key with '_' turned into '-'
//     (--state-dir, --max-file-size), counted only when set explicitly;
//  2. the environment variable CKPT_<KEY> (CKPT_STATE_DIR, CKPT_IGNORE, ...),
//     counted only when non-empty; CKPT_IGNORE is a comma-separated list;
//  3. <workspace>/ckpt.yaml, for the workspace-scoped keys only;
//  4. $XDG_CONFIG_HOME/ckpt/ckpt.yaml (default ~/.config/ckpt/ckpt.yaml);
//  5. the built-in defaults (see Default, and ckpt.yaml at the repository
//     root, which documents every key).
//
// A key is replaced as a whole, never merged: an ignore list in the workspace
// file replaces the one in the XDG file, CKPT_IGNORE replaces both. A key
// that is present but null in a file ("ignore:") counts as not set; write
// "ignore: []" to clear a list.
//
// # Whose file may set what
//
// A workspace's ckpt.yaml arrives with whatever repository was cloned there:
// it is untrusted input. It may set the keys that shape how that workspace
// is watched and kept (ignore, max_file_size, debounce, max_delay,
// rescan_interval, sync_timeout, lock_timeout, queue_size, log_level,
// retention, retention_size), never the user-only keys (UserOnly: state_dir, socket, autostart), which
// decide where ckpt writes, which daemon it believes and whether it leaves
// one running. A workspace file
// that sets one is an *Error naming the key and the file; the user's own
// file, the environment and the flags set them as before.
//
// # Keys
//
// state_dir, socket, ignore, max_file_size, debounce, max_delay,
// rescan_interval, sync_timeout, lock_timeout, queue_size, log_level,
// retention, retention_size, ui_addr, autostart. Keys are case-insensitive (a key written twice in different cases is an
// error), and a nested map names dotted keys ("ignore: {a: 1}" is the
// unknown key ignore.a). Sizes take bytes
// or units (ParseSize), durations take Go durations or whole days such as
// "30d" (ParseDuration).
//
// Paths (state_dir, socket) expand a leading "~" or "~/" to $HOME. A relative
// path is relative to the directory of the file that holds it (so relative
// to the workspace for <workspace>/ckpt.yaml), and to the current directory
// when it comes from the environment or a flag. Load returns absolute paths.
//
// # Errors
//
// Every value of every source is checked, also one that a higher source
// overrides: a malformed file, an unknown key (a typo must not pass
// silently) or a bad value is an *Error naming the key and the source.
// The commands map it to exit code 2.
package config
