// Package drift owns runs, their baselines, drift detection and rebase,
// run-scoped diffs, tool windows and their side effects, and attribution.
// Its Engine answers every ckpt command; the daemon and the embedded client
// run the same Engine and differ only in how Sync catches the store up
// with the disk (a cookie through the watcher, or a reconcile scan).
//
// # Runs
//
// The first run of a workspace finds the initial import (cut by the first
// command) as its current checkpoint, so it needs no checkpoint of its own.
// run start syncs, then compares the live fingerprint with the current
// checkpoint's. Equal: that checkpoint is the baseline. Different: a
// pre_run_drift_rebase checkpoint is cut now and is the baseline, and the
// drift (the paths that differ) is reported and persisted with the run.
// While a run is open, captured changes carry its session and run (and,
// inside a tool window, the tool call; see Concurrent sessions). run end
// cuts end_of_turn, which becomes the current checkpoint. A run's diff is from its persisted
// baseline, so it never contains the person's edits from before the run.
//
// Each run and tool operation (start, end) is one snapshot.Tx
// (bookkeeping.go): the checkpoint, the run or window record, the current
// checkpoint and the open set commit together, and no capture lands
// between the drift run start reads and the baseline it cuts, so the drift
// it reports is exactly what the baseline holds. Done again, an operation
// finishes what a crash left of it in a store written by an earlier
// version, which committed each step apart.
//
// # Drift and restores
//
// snapshot reports what differs between two journal positions; drift
// decides what it means. Who changed a path (authors.go) is read from the
// journal entries a diff counts: a run, tool call or restore, or the
// person outside any run ("run", "person", "both"). A restore that is not
// exact takes back, with no paths named, only what runs changed, and keeps
// what only the person changed ("changed only outside runs"); a path both
// changed is a conflict. That is the snapshot.RestorePolicy drift gives
// the restore; snapshot keeps the mechanism (unreadable and unstored
// paths, symlinks, the intent).
//
// # Concurrent sessions
//
// The disk does not say which process wrote a file, so ckpt does not
// guess. Every change is stamped with every run and tool call open when it
// was captured (the newest call of the newest run first, the others in
// store.Attr.Shared); opening and closing a run or a window switches that
// set atomically with its checkpoint, so the journal divides exactly at
// each. A tool window's changes are those of its own stretch of the
// journal (pre_write to its end), a run's those from its baseline to its
// end, whoever's stamp an entry carries: each reports every change made
// while it was open, and a path changed while another run or window was
// open too carries shared_with naming them (a window of the same run is
// another window; a run's own windows are the run). Both are read from
// the journal and the persisted run and window records, so they hold
// after a daemon restart. The store itself is never corrupted by
// concurrent sessions, since all writes go through one serialized writer.
package drift
