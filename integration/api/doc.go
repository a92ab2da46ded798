// Package api is ckpt's wire: the JSON request and answer types of the
// daemon's socket API and of every --json output, the events of its event
// stream, the error answers and their statuses, and the version header.
// It imports nothing of ckpt but package fault (the error kinds it puts
// on the wire, itself a leaf), so the client, the CLI, the runtime adapters
// and any UI depend on it and not on the engine (drift, snapshot, store);
// the engine's methods take and return these types.
//
// The routes, their methods and their bodies:
//
//	GET  /v1/status                  Status
//	POST /v1/checkpoint              Checkpoint        CheckpointBody
//	POST /v1/rescan                  {}
//	GET  /v1/log?n=N                 Log
//	GET  /v1/show?id=ID              Show
//	POST /v1/diff                    DiffResult        DiffRequest
//	POST /v1/run/diff                RunDiff           RunRequest
//	POST /v1/run/start               RunStart          RunBody
//	POST /v1/run/end                 RunEnd            RunBody
//	POST /v1/tool/start              Checkpoint        ToolRequest
//	POST /v1/tool/end                ToolEnd           ToolRequest
//	POST /v1/restore                 RestoreResult     RestoreRequest
//	POST /v1/undo                    RestoreResult     RestoreRequest
//	POST /v1/revert                  RevertResult      RevertRequest
//	GET  /v1/history?path=P&n=N      History
//	GET  /v1/health                  Health
//	POST /v1/review                  Review            ReviewRequest
//	GET  /v1/reviews?session=S&run=R Reviews
//	POST /v1/workspaces              AddWorkspacesResult  AddWorkspacesRequest
//	GET  /v1/events?workspace=ROOT   server-sent Events
//
// Every engine route names its workspace with workspace=ROOT. An error is
// an ErrorBody with the status StatusOf gives (ErrorOf reads it back);
// every answer carries VersionHeader, which CheckVersion compares with
// this binary's Version.
package api
