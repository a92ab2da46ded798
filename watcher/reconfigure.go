package watcher

import (
	"sync"
	"time"
)

// Settings are what Reconfigure changes in a running watcher: the
// workspace's configuration as it may change while the daemon runs.
type Settings struct {
	// Ignorer replaces the ignore rules (nil keeps them). The workspace is
	// then re-walked: newly ignored paths leave the store, newly unignored
	// ones are captured, directory watches follow.
	Ignorer        *Ignorer
	Debounce       time.Duration // as Options.Debounce
	MaxDelay       time.Duration // as Options.MaxDelay; 0 = DefaultMaxDelay
	RescanInterval time.Duration // as Options.RescanInterval
}

// reconfig holds the settings Reconfigure handed over until the processor
// takes them.
type reconfig struct {
	mu   sync.Mutex
	next *Settings
}

// Reconfigure makes the watcher use s: from the processor's next turn on,
// before any event still queued is handled. Safe for concurrent use, also
// from the Sink's own calls; it never blocks.
func (w *Watcher) Reconfigure(s Settings) {
	w.reconf.mu.Lock()
	w.reconf.next = &s
	w.reconf.mu.Unlock()
	w.q.notify()
}

// applySettings is the processor taking what Reconfigure handed over; it
// reports whether there was anything.
func (w *Watcher) applySettings() bool {
	w.reconf.mu.Lock()
	s := w.reconf.next
	w.reconf.next = nil
	w.reconf.mu.Unlock()
	if s == nil {
		return false
	}
	if s.MaxDelay <= 0 {
		s.MaxDelay = DefaultMaxDelay
	}
	w.opts.Debounce, w.opts.MaxDelay, w.opts.RescanInterval = max(s.Debounce, 0), s.MaxDelay, s.RescanInterval
	w.pending.debounce, w.pending.maxDelay = w.opts.Debounce, w.opts.MaxDelay
	if s.Ignorer != nil {
		w.ig = s.Ignorer
		w.needWalk = "the configured ignore rules changed"
	}
	return true
}
