// Package daemon is ckptd: the server of the socket API, the registry of
// the workspaces it serves, each workspace watched (its watcher, its
// configuration reloaded when ckpt.yaml or the user's file changes, its
// daily pruning, its replication restarted when the remote settings
// change), and
// the soft memory limit, and the web panel (integration/panel) on
// ui_addr, built here over the served workspaces through the Source
// interface the panel declares (panel_source.go). cmd/ckptd keeps the flags, the signals and the
// log output; Daemon.Run does the rest.
//
// # The socket API
//
// HTTP/1.1 with JSON bodies over a unix socket, in the style of tailscale's
// localapi. The routes and their bodies are listed in integration/api. The
// engine routes map one to one onto drift.Engine's methods. Errors are
// api.ErrorBody: 400 for bad input (api.ErrInvalid; the CLI exits 2), 404
// for a workspace the daemon does not serve or an unknown route, 405 for a
// wrong method, 507 when the state directory is full, 500 for anything
// else. Every answer carries api.VersionHeader. Calls that change state
// are not cancelled when the client goes away: once started they finish.
//
// # Workspaces
//
// The Server holds a registry of workspaces, each opened by its OpenFunc
// (the Daemon's: the store imported the first time, the watcher started,
// the engine built with drift.Options whose Sync is the watcher's cookie
// barrier and whose Daemon is Server.DaemonInfo). A request for a
// workspace being opened waits for it. The server builds nothing into an
// engine after the fact: it subscribes to the workspace's events, and
// serves the engine it was given.
//
// # Who may connect
//
// The socket's directory is created 0700, the socket is chmod 0600, and
// every accepted connection's peer uid (SO_PEERCRED) must be the daemon's
// own; others are closed at once. Before listening, Listen dials the
// socket: if something answers, another daemon is there and Listen fails;
// if the connection is refused, the socket file is stale and is replaced.
// LockStateDir makes one daemon per state directory.
//
// # Events
//
// The workspace tells the server of every change, checkpoint and restore
// while holding its lock, so publishing never blocks: each subscriber has a
// bounded buffer, and when it is full the event is dropped and counted. The
// subscriber's stream then carries a "lost" event with the count, after the
// events it did receive: a UI that sees one should re-read the status.
package daemon
