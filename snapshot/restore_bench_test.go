package snapshot

import (
	"context"
	"fmt"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// BenchmarkRestore is a whole restore (plan, guard and intent, apply with
// its syncs, record) of n modified paths in a workspace of 10,000 files,
// without the daemon's cookie round trip. Its waits (fsync, syncfs) show
// in wall time, not in a CPU profile: compare with strace -f -c.
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
			for b.Loop() {
				b.StopTimer()
				benchModify(b, ws, changed, fmt.Sprint("edit ", i))
				i++
				b.StartTimer()
				res, err := ws.Restore(ctx, base, RestoreOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Restored) != n {
					b.Fatalf("restored %d paths, want %d", len(res.Restored), n)
				}
			}
		})
	}
}
