package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// idleWorkLimit bounds the wait for a daemon's background work after a
// storage scenario.
const idleWorkLimit = 5 * time.Minute

// waitIdleWork waits, after a storage scenario's last step, for the
// daemon's background work: the first import's recompression (its mark
// goes when done), then the idle maintenance (the log's "idle
// maintenance:" line, which comes once the store has been idle a while),
// then a quiet second (waitQuiet). It prints how long that took and the
// daemon's CPU time meanwhile to stderr.
func waitIdleWork(d *daemon, state, logPath string) {
	start, cpu0 := time.Now(), cpuTime(d.pid())
	seen := idleMaintained(logPath)
	for time.Since(start) < idleWorkLimit && !d.exited() {
		time.Sleep(time.Second)
		marks, _ := filepath.Glob(filepath.Join(state, "workspaces", "*", "recompress-pending"))
		if len(marks) == 0 && idleMaintained(logPath) > seen {
			break
		}
	}
	maintained := time.Since(start)
	_, _, quiet := waitQuiet(d, state, time.Minute)
	fmt.Fprintf(os.Stderr, "idle work: maintenance logged after %s, quiet %v after %s; daemon CPU meanwhile %s\n",
		maintained.Round(time.Millisecond), quiet, time.Since(start).Round(time.Millisecond), (cpuTime(d.pid()) - cpu0).Round(time.Millisecond))
}

// idleMaintained counts the daemon log's finished idle maintenances.
func idleMaintained(logPath string) int {
	b, _ := os.ReadFile(logPath)
	return strings.Count(string(b), "idle maintenance:")
}
