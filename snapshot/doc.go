// Package snapshot is ckpt's engine: copy-on-change capture into an
// append-only journal, the rolling fingerprint, checkpoints, state at a
// checkpoint, diffs, and exact, undoable restores. It imports only store.
//
// # Capture
//
// Capture (dirty paths from the watcher) and Reconcile (a full walk, at
// start, after an overflow, and before every embedded command) share one
// path: compare the lstat tuple (type, mode, size, mtime, ctime, inode)
// with the entry; hash only what differs, in parallel; re-read a file whose
// stat changed while it was read; record a journal entry only when the
// content, type or executable bit changed. A file whose mtime is within two
// seconds of the moment its entry was recorded is re-hashed by the next
// scan (the racy-timestamp rule). Files over MaxFileSize are hashed but not
// stored.
//
// A file with several hard links changes under every name when one is
// written, but inotify names only the one written. Capture therefore also
// captures every other recorded name of a multiply-linked file it sees
// (links.go: an index of device and inode to names, for files whose link
// count is above one, rebuilt by every Reconcile; a file the index does not
// know yet is looked up among the entries by inode). Hard links are not
// part of a path's state: a restore writes each name as a file of its own.
//
// A write through a shared memory mapping raises no event, and moves the
// file's mtime only at the write fault that makes a clean page writable,
// so a stat scan misses a later write to a page still dirty. Rescan (and
// Reconcile with Options.CheckMappings: the daemon's scans) therefore
// reads every file that a process has mapped shared and writable, as
// /proc/PID/maps lists them (mapped.go), whatever its stat says.
//
// What cannot be read is unknown, never deleted: a directory the walk
// could not list, or a file it could not stat or open, keeps every entry
// it (or under it) had; the workspace remembers such paths (Unreadable)
// until a walk or capture reads them again, each checkpoint records them,
// and a restore keeps every path under one that is unreadable now or was
// when its target was cut.
//
// # Fingerprint
//
// The fingerprint is Σ xxhash64(path, content hash, mode) mod 2^64 over
// every captured path, plus the count. Each journal entry moves it in O(1);
// each checkpoint records it. The workspace has drifted when the live
// fingerprint differs from its current checkpoint's.
//
// # Checkpoints and diffs
//
// A checkpoint is a journal position: cutting one writes one record. The
// state of a path at a checkpoint is its newest path-index entry at or
// below the checkpoint's seq. A diff between two positions reads only the
// journal entries between them.
//
// Drift (status, run start, restore planning) is a diff from the current
// checkpoint to the head, but a restore back to an old checkpoint records
// where it left the workspace equal to it (the settled seq, and the paths
// it kept as they were): drift then reads only the journal after that, so
// status after restoring an old checkpoint costs the changes since the
// restore, not the history in between.
//
// # Transactions
//
// Update runs a closure (Tx) in one store commit under the capture lock:
// the run and tool bookkeeping of the layer above (cut a checkpoint, read
// the drift it holds, put run and tool window records, move the current
// checkpoint, change who is open) lands together or not at all, and no
// capture comes between what the closure reads and what it writes; one
// sync makes it durable before Update returns. Crash points
// "commit" and "committed" (crashpoint.go) stop the process just before
// and just after the commit.
//
// # Restore
//
//	plan:   for each path with journal entries after the target (in scope):
//	          target state := state at target; skip it if equal to now
//	          keep it (with why) if it is or was unreadable, if the
//	          caller's policy says so (drift keeps what only the person
//	          changed), or if either side's content is not stored
//	check:  refuse (take out of the plan, and list with why) each path
//	        whose write would go through a symlink on disk; the rest goes on
//	nothing left to write: make the target current, and stop (no guard)
//	guard+intent: cut pre_restore_guard and persist the plan (each path's
//	        state now and its target) in one commit; one sync
//	apply:  removals deepest first, then writes parents first, in batches:
//	        open each directory of the batch once, as an os.Root through
//	        its parent's (creating it if missing); on bounded workers,
//	        read each content and stage it as a temp file in it; make the
//	        batch's data durable (concurrent fsyncs; one syncfs for a
//	        large batch); rename each into place, in parallel; those
//	        directories a removal emptied are removed; last, sync every
//	        directory whose entries changed (one syncfs when many)
//	record: in one commit, not synced: journal what was written
//	        (attributed to the restore), make the target current, delete
//	        the intent
//
// Why a crash (or power cut) at any point loses nothing:
//
//   - Before the guard+intent sync returns, nothing on disk has changed;
//     the guard and the intent are one commit, so they are durable
//     together or not at all. The guard exists before the first change.
//   - From then until the record commit is durable, the intent is. The
//     next Open finds it and applies it again (apply is idempotent), then
//     records it. A staged file is durable before its rename, so a path
//     holds its old content or its new one, never a torn one; temp files
//     left behind are removed first.
//   - apply syncs the directories before the record commit is written, so
//     a durable record never describes renames that a power cut undid.
//   - The record commit is not synced: if a power cut loses it, the intent
//     is still there, and the next Open redoes the restore. A path that
//     by then holds neither its planned state nor its target was written
//     after the restore (by the person, or by a program while ckpt was
//     down); that content is in no checkpoint, so Open leaves it, and the
//     next scan records it as a change. Any later sync (a checkpoint, Close)
//     makes the record durable.
package snapshot
