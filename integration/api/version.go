package api

import "fmt"

// Version is the version of ckpt's binaries and socket API. Release builds
// set it with -ldflags "-X github.com/ckptdev/ckpt/integration/api.Version=...".
var Version = "0.1.0-dev"

// VersionHeader carries Version on every answer of the daemon.
const VersionHeader = "Ckpt-Version"

// CheckVersion compares the version a daemon answered with (its
// VersionHeader; "" if it sent none) with this binary's. It is nil when
// they are the same, else a one-line warning: the two may not agree on
// the API.
func CheckVersion(daemon string) error {
	if daemon == Version {
		return nil
	}
	if daemon == "" {
		daemon = "an unknown version"
	}
	return fmt.Errorf("the daemon on the socket is ckptd %s, this binary is %s: restart ckptd so that both run the same version", daemon, Version)
}
