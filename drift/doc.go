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
// inside a tool window, the tool call). run end cuts end_of_turn, which
// becomes the current checkpoint. A run's diff is from its persisted
// baseline, so it never contains the person's edits from before the run.
//
// # Concurrent sessions
//
// The disk does not say which process wrote a file. When two runs are open
// on one workspace, changes are attributed to the run whose tool window
// opened last (else the run that started last). Each run's diff is from its
// own baseline, so it also shows the other run's changes to the same tree;
// the store itself is never corrupted by this, since all writes go through
// one serialized writer.
package drift
