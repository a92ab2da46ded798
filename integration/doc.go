// Package integration is how the world talks to ckpt: the daemon's HTTP
// API over a unix socket (server and typed client), the stream of events,
// agent-runtime adapters (Claude Code hooks) and the systemd user unit.
//
// # The socket API
//
// HTTP/1.1 with JSON bodies over a unix socket, in the style of tailscale's
// localapi. Every route is under /v1/ and every engine route names the
// workspace it is for with the query parameter workspace=ROOT (an absolute
// path). The engine routes map one to one onto drift.Engine's methods:
//
//	GET  /v1/status                  Status
//	POST /v1/checkpoint              Checkpoint        {"message"}
//	GET  /v1/log?n=N                 Log
//	GET  /v1/show?id=ID              Show
//	POST /v1/diff                    Diff              api.DiffRequest
//	POST /v1/run/diff                RunDiff           api.RunRequest
//	POST /v1/run/start               RunStart          {"session_id", "run_id"}
//	POST /v1/run/end                 RunEnd            {"session_id", "run_id"}
//	POST /v1/tool/start              ToolStart         api.ToolRequest
//	POST /v1/tool/end                ToolEnd           api.ToolRequest
//	POST /v1/restore                 Restore           api.RestoreRequest
//	POST /v1/undo                    Undo              api.RestoreRequest
//
// and the daemon's own:
//
//	GET  /v1/health                  Health: version, pid, workspaces, watcher stats
//	POST /v1/workspaces              add workspaces    {"workspaces": [ROOT...]}
//	GET  /v1/events?workspace=ROOT   server-sent events: change, checkpoint, restore, lost
//
// Errors are {"error": "..."}: 400 for bad input (api.ErrInvalid; the
// CLI exits 2), 404 for a workspace the daemon does not serve or an unknown
// route, 405 for a wrong method, 500 for anything else. Every answer carries
// a Ckpt-Version header. Calls that change state are not cancelled when the
// client goes away: once started they finish.
//
// # Who may connect
//
// The socket's directory is created 0700, the socket is chmod 0600, and
// every accepted connection's peer uid (SO_PEERCRED) must be the daemon's
// own; others are closed at once. The client checks the other way round:
// a socket served by another uid is ErrForeignDaemon before a byte is sent,
// since whoever serves it could answer anything. PrepareStateDir checks the
// state directory as ssh checks its files. Before listening, Listen dials the socket:
// if something answers, another daemon is there and Listen fails; if the
// connection is refused, the socket file is stale and is replaced.
//
// # Events
//
// The workspace tells the server of every change, checkpoint and restore
// while holding its lock, so publishing never blocks: each subscriber has a
// bounded buffer, and when it is full the event is dropped and counted. The
// subscriber's stream then carries a "lost" event with the count, after the
// events it did receive: a UI that sees one should re-read the status.
package integration
