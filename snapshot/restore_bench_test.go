package snapshot

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// BenchmarkRestore is a whole restore (plan, guard and intent, apply with
// its syncs, record) of n modified paths in a workspace of 10,000 files,
// without the daemon's cookie round trip. Its waits (fsync, syncfs) show
// in wall time, not in a CPU profile (compare with strace -f -c), nor in
// cpu-ms/op, the CPU the process used per restore.
func BenchmarkRestore(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("changed=%d", n), func(b *testing.B) {
			ws, paths := benchWorkspace(b, 10_000)
			base, err := ws.Cut(ReasonManual, "", store.Attr{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			changed := spread(paths, n)
			b.ReportAllocs()
			i := 0
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				benchModify(b, ws, changed, fmt.Sprint("edit ", i))
				i++
				b.StartTimer()
				c0 := cpuTime()
				res, err := ws.Restore(ctx, base, RestoreOptions{})
				cpu += cpuTime() - c0
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Restored) != n {
					b.Fatalf("restored %d paths, want %d", len(res.Restored), n)
				}
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU (user and system) the process has used so far: a
// restore's waits on the disk do not count in it, so it compares runs on
// a busy machine better than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
