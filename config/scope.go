package config

import (
	"errors"
	"fmt"
	"sort"
)

// userOnlyKeys may be set only by the person running ckpt: in their own
// config file ($XDG_CONFIG_HOME/ckpt/ckpt.yaml), the environment or a flag.
// A workspace's ckpt.yaml comes with whatever repository was cloned there,
// so it must not decide where ckpt keeps its stores (another user's
// directory, where a planted symlink redirects ckpt's writes) nor which
// daemon ckpt believes (another user's socket, which can answer anything).
// Nor may it decide whether ckpt leaves a daemon running on the machine
// (autostart): a long-lived process, its inotify watches and its memory are
// the user's to allow, and a cloned repository must not turn that on against
// the user's "autostart: false" (nor off, silently making every hook scan).
// Any future key that names a place outside the workspace, a credential or
// a process ckpt starts belongs here too.
var userOnlyKeys = map[string]error{
	"state_dir": errUserOnly,
	"socket":    errUserOnly,
	"autostart": errUserOnlyProcess,
	// Where the workspace's history is uploaded to, and with which key: a
	// cloned repository must not send it elsewhere.
	"remote":          errUserOnly,
	"remote_endpoint": errUserOnly,
	"remote_key_file": errUserOnly,
}

// UserOnly reports whether key may be set only in the user's own config
// file, the environment or a flag, never in a workspace's ckpt.yaml.
func UserOnly(key string) bool { return userOnlyKeys[key] != nil }

// errUserOnly is the reason a workspace's ckpt.yaml may not set a key.
var (
	errUserOnly        = errors.New("not allowed in a workspace's ckpt.yaml (a cloned repository could point ckpt at another user's directory or daemon)")
	errUserOnlyProcess = errors.New("not allowed in a workspace's ckpt.yaml (whether ckpt leaves a daemon running is the user's choice, not a cloned repository's)")
)

// checkWorkspaceScope refuses a workspace file that sets a user-only key,
// naming the first such key (in sorted order) and where to set it instead.
func checkWorkspaceScope(l layer) error {
	var bad []string
	for name, raw := range l.raw {
		if userOnlyKeys[name] != nil && raw != nil {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	k := bad[0]
	where := fmt.Sprintf("set it in ~/.config/ckpt/ckpt.yaml or as %s", envName(k))
	if k != "autostart" { // the one user-only key without a flag
		where = fmt.Sprintf("set it in ~/.config/ckpt/ckpt.yaml, as %s or with --%s", envName(k), flagName(k))
	}
	return &Error{Key: k, Source: l.source(k), Err: fmt.Errorf("%w; %s", userOnlyKeys[k], where)}
}
