// Package local puts the engine together from its parts, the same way for
// every program that runs it: a snapshot.Workspace on its store (imported
// the first time, pruned when due), the watcher's ignore rules and walker,
// and a drift.Engine on top. Embedded is the engine without a daemon
// (cmd/ckpt, the bench): every command reconciles with a scan first, after
// waiting for a git command in flight (watcher.WaitIndexLock). The daemon
// builds its watched workspaces from OpenWorkspace and Ignorer.
// PrepareStateDir checks the state directory the stores live in, as ssh
// checks its files. It holds no algorithm.
package local
