// Package client is the typed client of the daemon's socket API: one
// method per route (Client for the daemon's own routes, WorkspaceClient
// for one workspace's, with the signatures of drift.Engine's methods), and
// the event stream. It imports only the wire (integration/api), so a
// program that talks to ckptd does not link the engine; and it speaks
// HTTP/1.1 itself (wire.go), so it does not link net/http either.
//
// # Whom it talks to
//
// Dial costs one stat: the first call connects. Every connection's peer
// uid (SO_PEERCRED) must be this process's own: a socket served by another
// uid is ErrForeignDaemon before a byte is sent, since whoever serves it
// could answer anything. An error answer becomes an error with the
// daemon's message that matches what the daemon had (api.ErrorOf: a 400
// is api.ErrInvalid, a 507 syscall.ENOSPC). Every answer carries the
// daemon's version; the first that differs from this binary's is reported
// once through Options.VersionWarning.
package client
