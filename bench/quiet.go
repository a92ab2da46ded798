package main

import (
	"path/filepath"
	"time"
)

// busyDaemonCPU is the CPU time a daemon may use in a second and still
// count as idle (its timers, the collector).
const busyDaemonCPU = 20 * time.Millisecond

// waitQuiet waits until the daemon has no background work left: no store
// of the state directory still marked for recompression (the contents a
// first import stored with its fast codec, which the daemon rewrites as
// zstd at half a core once it serves) and its CPU time over a second
// under busyDaemonCPU; at most limit. It returns how long that took and
// the daemon's CPU time meanwhile. A figure of one request measured while
// that work runs counts the work's CPU as the request's.
func waitQuiet(d *daemon, state string, limit time.Duration) (took, cpu time.Duration, quiet bool) {
	start, cpu0 := time.Now(), cpuTime(d.pid())
	for time.Since(start) < limit && !d.exited() {
		before := cpuTime(d.pid())
		time.Sleep(time.Second)
		pending, _ := filepath.Glob(filepath.Join(state, "workspaces", "*", "recompress-pending"))
		if len(pending) == 0 && cpuTime(d.pid())-before < busyDaemonCPU {
			quiet = true
			break
		}
	}
	return time.Since(start), cpuTime(d.pid()) - cpu0, quiet
}
