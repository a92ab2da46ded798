// Package integration holds how the world talks to ckpt, one job per
// package. It has no code of its own.
//
//	integration/api               the wire: request and answer types, events, error
//	                              statuses, the version header (imports nothing of ckpt)
//	integration/client            the typed client over the daemon's socket
//	integration/daemon            ckptd: the server, the workspace registry, the
//	                              watched workspaces, pruning, the memory limit
//	integration/local             the engine built from its parts (store, watcher
//	                              rules, drift), the same for the daemon, the
//	                              embedded client and the bench; the state directory
//	integration/hooks/claudecode  the Claude Code hook adapter (pure: cmd/ckpt runs it)
//	integration/panel             the web panel's HTTP handler (imports api; the
//	                              daemon builds it over its workspaces)
//	integration/web               the panel's page, embedded
//	integration/service           the systemd user unit
//
// Arrows point one way: api is the leaf every other part may import; the
// client imports only api; the daemon imports local and the engine; an
// adapter imports api (and what it needs of the engine's names), never the
// daemon. A new runtime adapter is a package under integration/hooks, a UI
// a package that imports api and client (or the daemon's Server, to be
// served by it).
package integration
