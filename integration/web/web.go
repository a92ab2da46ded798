// Package web holds the panel's page, embedded in the binary: plain HTML,
// CSS and ES modules, loaded by the browser as they are (no build step).
//
// index.html is the page; assets/ holds what it loads: app.js (the router
// and the live connection), api.js (requests to the daemon), the views
// (timeline.js, run.js, history.js, drift.js), filelist.js (the run view's
// windowed list of files), diff.js (the diff viewer), dom.js (a small element builder) and style.css (light and dark).
package web

import "embed"

// Assets is the page and its assets.
//
//go:embed index.html assets
var Assets embed.FS
