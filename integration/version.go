package integration

// Version is the version of ckpt's binaries and socket API. Release builds
// set it with -ldflags "-X github.com/ckptdev/ckpt/integration.Version=...".
var Version = "0.1.0-dev"

// VersionHeader carries Version on every answer of the daemon.
const VersionHeader = "Ckpt-Version"
