// Package watcher finds out what changed in a workspace. It owns the
// recursive fsnotify watch, the ignore rules, the walks that reconcile scans
// are built on, the debouncing of events into dirty paths, and the sync
// cookies. It reports paths; it never reads or stores file content. Besides
// the standard library and fsnotify it may import only config.
//
// # What is never captured
//
// Any path with a component named .git (directory or file), and any path
// with a component starting with InternalPrefix (ckpt's restore temp files
// and sync cookies), whatever the ignore rules say. Everything else is
// decided by the Ignorer.
//
// # Ignore rules
//
// The Ignorer agrees with git (dir.c and wildmatch.c, which it ports): the
// test suite compares it with `git check-ignore` case by case. The rules come
// from, highest precedence first:
//
//  1. the .ckptignore, then the .gitignore, of the path's own directory, then
//     of each parent directory up to the workspace root (a deeper directory
//     wins; a directory's files apply only to paths below it);
//  2. .git/info/exclude of the root's repository (for a worktree or
//     submodule, the common git directory's);
//  3. the configured extra patterns, read like a root-level .gitignore
//     (git's core.excludesFile has this place).
//
// The first source with a matching pattern decides; within a source the last
// matching line wins, and a .ckptignore's lines count as coming after its
// directory's .gitignore. A "!" line re-includes. The workspace root is the
// top: ignore files above it, and git's global excludes file, are not read.
//
// Deciding path P:
//
//	if P has a .git or internal component: ignored
//	for each ancestor directory A of P, root first:
//		if rules(A) exclude A (as a directory): ignored   // git cannot re-include below an excluded directory
//	return rules(P)                                       // sources as above
//
// Ignore files are read lazily, one directory at a time, only for
// directories that are not excluded (as git does), and cached. Invalidate
// drops a directory's cache when its .gitignore or .ckptignore changes (the
// root's also re-reads info/exclude). A walk checks each ignore file it lists
// against the one cached, and re-reads it if it changed, so a scan always uses
// the rules on disk. Symlinked ignore files are not followed (as git 2.32+).
//
// Patterns are git's: a trailing "/" matches directories only; a "/" at the
// start or in the middle anchors the pattern to its file's directory, else
// it matches the base name at any depth; "*", "?" and "[...]" never match
// "/"; "**/" leading, "/**" trailing and "/**/" in the middle match any
// number of directories; "\" escapes ("\#", "\!", "\ "); unescaped trailing
// spaces are trimmed; lines starting with "#" are comments.
//
// # Walks
//
// Walker lists directories on a bounded pool of goroutines (one ReadDir per
// directory, one Lstat per captured file, nothing for ignored ones) and
// never descends into ignored directories. OnDir runs before a directory is
// listed, so a watch added there misses nothing the listing does not see.
// Callbacks are serialized; per-entry errors go to OnError and never end the
// walk. With VisitUnreadable, a directory or file that exists but could not
// be read is also passed to visit (UnreadableError says why), so the sink
// can tell "not there" from "unknown". A directory whose path is longer
// than PATH_MAX is opened one component at a time through an os.Root; it
// cannot be watched (inotify takes a whole path), which puts the watcher in
// its re-walk-at-every-sync mode, as at the watch limit.
//
// # Watching
//
// (Maintained by the watch part's author: watch*.go, cookie*.go.)
//
// fsnotify is not recursive on Linux: a watch is added for every directory
// that is not ignored, and a directory that appears is watched first, then
// walked. Events are hints, coalesced per path for a short settle delay and
// reported as dirty paths; the walk is the truth. A queue overflow, a
// watcher error or a watch limit falls back to a full rescan. Cookies are
// files named with InternalPrefix created in the root to find out when every
// earlier event has been seen.
//
// Watcher.Run, in pseudo-code (one drain goroutine, one processor):
//
//	drain:   fsnotify Events and Errors -> bounded queue (Options.QueueSize)
//	         full queue, IN_Q_OVERFLOW or a watcher error -> overflow flag
//	start:   re-walk (below), then Ready
//	loop:    overflow flag?       clear the queue; re-walk
//	         cookie event:        flush every pending path now; complete the round
//	                              (re-walking first if one is wanted or watches are missing)
//	         .gitignore/.ckptignore event: Invalidate(its dir); the root's: want a re-walk;
//	                              another's: its directory waits for a subtree re-walk
//	         Remove/Rename:       drop the watches of the subtree if it was a directory; mark path
//	         Create of a dir:     watch it, then list it, recursively; mark its files and itself
//	         other event:         mark path (ignored and internal paths never are)
//	         idle:                wanted or periodic re-walk; re-walk the subtrees
//	                              that are due; flush the paths that are due
//	re-walk: watch the root; note the cookie round in flight if its file exists;
//	         Sink.Reconcile(Walker whose OnDir adds each directory's watch before
//	         it is listed); drop watches of directories the walk did not see;
//	         complete the noted round
//	stop:    close fsnotify, drain, handle what is queued, flush everything
//
// A directory whose ignore file changed is re-walked alone (Walker.Start),
// with a SubtreeSink: its rules govern only what lies below it, so what
// they now ignore is dropped (entries and watches) and what they no longer
// ignore is captured and watched, as a full re-walk would, and nothing else
// is read. Like a marked path it waits Debounce after its last change (at
// most MaxDelay), so a burst of writes re-walks it once; a cookie round
// re-walks every waiting directory first, a directory under another one
// goes with it, and a full re-walk covers them all. A directory that
// appears has its cached rules dropped: they may be those of a directory
// renamed away from its path.
//
// A marked path is flushed Debounce after its last event or MaxDelay after
// its first, whichever is first, in sorted batches. Watched directories are
// known by path and by (device, inode): a directory found at a new path (a
// rename whose events were lost) has its old watch removed before the new
// one is added, since inotify would hand back the old watch, still named by
// the old path. A directory that cannot be watched (ENOSPC: the watch limit)
// is logged with the sysctl to run, and the watcher re-walks every
// DegradedRescanInterval and at every Sync until a re-walk watches
// everything. Sync waits for its round, then while .git/index.lock exists,
// and then runs another round. Rescan is a Sync whose first round re-walks
// the workspace before it completes: it finds changes no event reports
// (writes through a shared memory mapping), as the periodic re-walk
// (Options.RescanInterval) does on its own.
package watcher
