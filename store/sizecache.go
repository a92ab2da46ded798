package store

import (
	"sync"
	"time"
)

// sizeTTL is how long a measured store size is reused. Every status asks
// for the size (twice with a daemon: the workspace's and the daemon's),
// and measuring it is a stat of every file of the store: at 200k files
// that was a third of the daemon's CPU per status. A figure a second old
// is as good for a person reading it. A write through the store (a
// commit, a reclaim) makes the next call measure again.
var sizeTTL = time.Second

// sizeCache remembers the last measured size and when it was measured.
type sizeCache struct {
	mu   sync.Mutex
	at   time.Time
	size int64
}

// get returns the remembered size, or measures it again with measure when
// it is older than sizeTTL.
func (c *sizeCache) get(measure func() int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || time.Since(c.at) >= sizeTTL {
		c.size, c.at = measure(), time.Now()
	}
	return c.size
}

// invalidate makes the next get measure.
func (c *sizeCache) invalidate() {
	c.mu.Lock()
	c.at = time.Time{}
	c.mu.Unlock()
}
