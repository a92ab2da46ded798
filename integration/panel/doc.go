// Package panel is the HTTP handler of ckpt's web panel: a local page to
// review every run of a workspace and roll back any file, served by ckptd
// on a loopback address.
//
// # Security
//
// The panel can rewrite files, so every request must prove it comes from
// the person's own browser, on a page the daemon served:
//
//   - Listen binds loopback addresses only (127.0.0.1, ::1).
//   - Every request needs the daemon's random token: once in the URL that
//     `ckpt ui` opens (?token=), which sets an HttpOnly SameSite=Strict
//     cookie and redirects to the URL without it; from then on the cookie.
//   - The Host header must be a loopback name (127.0.0.1, localhost, [::1])
//     with the panel's port: a DNS-rebound name is refused (421).
//   - A request that changes state is a POST whose Origin is the panel's
//     own and that carries the token in the X-Ckpt-Token header (the page
//     holds it; other origins cannot read it): cross-site requests fail.
//   - No CORS headers are ever sent; OPTIONS is refused.
//
// Paths in requests go to the engine, which refuses any outside the
// workspace; workspaces are only those the daemon serves.
//
// # Routes
//
//	GET  /                       the page (web.Assets)
//	GET  /api/workspaces         {"workspaces": [ROOT...]}
//	GET  /api/status?ws=         api.Status
//	GET  /api/runs?ws=           api.Runs
//	GET  /api/checkpoints?ws=&before=ID&n=N   api.Page
//	GET  /api/run?ws=&session=&run=           RunView
//	GET  /api/run/patch?ws=&session=&run=[&path=][&call=]   api.DiffResult
//	GET  /api/history?ws=&path=               api.History
//	GET  /api/version-diff?ws=&path=&from=&to=   api.DiffResult
//	GET  /api/drift?ws=                       api.DiffResult (patches)
//	GET  /api/events?ws=                      server-sent events
//	POST /api/restore   {"ws", api.RestoreRequest}
//	POST /api/revert    {"ws", api.RevertRequest}
//	POST /api/undo      {"ws", "dry_run"}
//	POST /api/review    {"ws", api.ReviewRequest}
//
// A restore, revert or undo while another one of the same workspace is in
// flight is answered 409. Errors are {"error"}: 400 bad input, 401/403
// refused, 404 unknown workspace or route, 405 wrong method, 409 busy.
package panel
