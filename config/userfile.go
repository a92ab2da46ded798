package config

import (
	"os"
	"path/filepath"
)

// UserFile is the user's configuration file Load reads
// ($XDG_CONFIG_HOME/ckpt/ckpt.yaml, else ~/.config/ckpt/ckpt.yaml), whether
// or not it exists; "" when there is no home to find it in.
func UserFile() string {
	d := xdgDir(os.Getenv, "XDG_CONFIG_HOME", homeDir(os.Getenv, true), ".config")
	if d == "" {
		return ""
	}
	return filepath.Join(d, "ckpt", "ckpt.yaml")
}

// SameRemote reports whether two configurations replicate alike: the same
// remote, endpoint, region, key file, name and bandwidth.
func SameRemote(a, b *Config) bool {
	return a.Remote == b.Remote && a.RemoteEndpoint == b.RemoteEndpoint && a.RemoteRegion == b.RemoteRegion &&
		a.RemoteKeyFile == b.RemoteKeyFile && a.RemoteName == b.RemoteName && a.RemoteBandwidth == b.RemoteBandwidth
}
