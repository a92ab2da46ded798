package remotetest

import (
	"testing"
	"time"
)

// remote_bandwidth bounds the upload rate: a push of 4 MiB of contents
// that do not compress at 512 KiB/s takes about 7 s (the first 512 KiB
// are the token bucket's burst), and without the bound far less.
func TestRemoteBandwidthBoundsUploads(t *testing.T) {
	needWeed(t)
	const total, limit = 4 << 20, 512 << 10
	push := func(bandwidth string) (time.Duration, int64) {
		_, url := bucketURL(t)
		a := newMachine(t, url, "CKPT_REMOTE_NAME=proj", "CKPT_REMOTE_BANDWIDTH="+bandwidth)
		root := a.dir("proj")
		randomFiles(t, root, "data", 64, total/64)
		a.ok(root, "status") // the import, not timed
		var res struct {
			BlobBytes int64 `json:"blob_bytes"`
		}
		start := time.Now()
		a.json(root, &res, "push")
		return time.Since(start), res.BlobBytes
	}
	free, n := push("0")
	bounded, m := push("512KiB")
	t.Logf("push of %d bytes: %s unbounded, %s at 512 KiB/s (%.0f KiB/s)", m, free, bounded, float64(m)/bounded.Seconds()/1024)
	if n < total || m < total {
		t.Fatalf("pushed %d and %d bytes of contents, want %d", n, m, total)
	}
	// Never faster than the bound allows (the burst aside); slower only by
	// what a loaded machine adds.
	floor := time.Duration(float64(total-limit) / limit * float64(time.Second))
	if bounded < floor {
		t.Errorf("push at 512 KiB/s took %s, under the %s the bound allows", bounded, floor)
	}
	if bounded > 3*floor+free {
		t.Errorf("push at 512 KiB/s took %s, far over the %s the bound needs", bounded, floor)
	}
}
