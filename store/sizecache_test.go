package store

import (
	"testing"
	"time"
)

func TestSizeCacheMeasuresOncePerTTLAndAfterWrites(t *testing.T) {
	var c sizeCache
	n := 0
	measure := func() int64 { n++; return int64(n) }
	if got := c.get(measure); got != 1 {
		t.Fatalf("first get = %d, want 1", got)
	}
	if got := c.get(measure); got != 1 || n != 1 {
		t.Fatalf("second get within the TTL = %d after %d measurements, want 1 after 1", got, n)
	}
	c.invalidate()
	if got := c.get(measure); got != 2 {
		t.Fatalf("get after invalidate = %d, want 2", got)
	}
	old := sizeTTL
	sizeTTL = time.Millisecond
	defer func() { sizeTTL = old }()
	time.Sleep(2 * time.Millisecond)
	if got := c.get(measure); got != 3 {
		t.Fatalf("get after the TTL = %d, want 3", got)
	}
}
