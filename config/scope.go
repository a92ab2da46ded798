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
// Any future key that names a place outside the workspace, or a credential,
// belongs here too.
var userOnlyKeys = map[string]bool{
	"state_dir": true,
	"socket":    true,
	// Where the workspace's history is uploaded to, and with which key: a
	// cloned repository must not send it elsewhere.
	"remote":          true,
	"remote_endpoint": true,
	"remote_key_file": true,
}

// UserOnly reports whether key may be set only in the user's own config
// file, the environment or a flag, never in a workspace's ckpt.yaml.
func UserOnly(key string) bool { return userOnlyKeys[key] }

// errUserOnly is the reason a workspace's ckpt.yaml may not set a key.
var errUserOnly = errors.New("not allowed in a workspace's ckpt.yaml (a cloned repository could point ckpt at another user's directory or daemon)")

// checkWorkspaceScope refuses a workspace file that sets a user-only key,
// naming the first such key (in sorted order) and where to set it instead.
func checkWorkspaceScope(l layer) error {
	var bad []string
	for name, raw := range l.raw {
		if userOnlyKeys[name] && raw != nil {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	k := bad[0]
	return &Error{Key: k, Source: l.source(k), Err: fmt.Errorf("%w; set it in ~/.config/ckpt/ckpt.yaml, as %s or with --%s", errUserOnly, envName(k), flagName(k))}
}
