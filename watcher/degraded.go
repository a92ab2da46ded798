package watcher

import (
	"slices"
	"strings"
	"time"
)

// Degraded describes the directories the watcher could not watch: the
// inotify watch limit ran out, or a path is longer than PATH_MAX. What
// lies under them is covered by full re-walks (at every Sync and every
// DegradedRescanInterval) instead of events.
type Degraded struct {
	Reason string   // why, and what to do about it
	Count  int      // directories without a watch
	Dirs   []string // the topmost of them (whose parent is watched), sorted, at most DegradedShown
}

// DegradedShown bounds Degraded.Dirs.
const DegradedShown = 20

// unwatchedSet is the directories without a watch, as the last full walk
// and the scans since found them. Owned by the processor goroutine; what
// Stats reports is published under smu.
type unwatchedSet struct {
	cur       map[string]bool // found since the current walk began
	last      map[string]bool // what the last complete walk found, plus since
	reason    string
	walking   bool      // a full walk is under way: publish at its end
	published time.Time // when Stats' copy was last made
}

// noteUnwatched records that the directory rel could not be watched.
func (w *Watcher) noteUnwatched(rel, reason string) {
	u := &w.unwatched
	if u.cur == nil {
		u.cur = map[string]bool{}
	}
	u.cur[rel] = true
	if u.last == nil {
		u.last = map[string]bool{}
	}
	u.last[rel] = true
	u.reason = reason
	// Publishing sorts the set: not once per directory of a big subtree.
	if !u.walking && (len(u.last) < 256 || time.Since(u.published) > time.Second) {
		w.publishDegraded()
	}
}

// watchedAgain records that the directory rel has a watch now.
func (w *Watcher) watchedAgain(rel string) {
	u := &w.unwatched
	if !u.last[rel] && !u.cur[rel] {
		return
	}
	delete(u.cur, rel)
	delete(u.last, rel)
	w.publishDegraded()
}

// unwatchedWalkStart begins a full walk's count; unwatchedWalkDone ends
// it, replacing what the previous walk found.
func (w *Watcher) unwatchedWalkStart() { w.unwatched.cur, w.unwatched.walking = nil, true }

func (w *Watcher) unwatchedWalkDone(complete bool) {
	w.unwatched.walking = false
	if !complete {
		w.publishDegraded()
		return
	}
	w.unwatched.last = w.unwatched.cur
	w.unwatched.cur = nil
	if len(w.unwatched.last) == 0 {
		w.unwatched.reason = ""
	}
	w.publishDegraded()
}

// publishDegraded makes the unwatched set what Stats reports.
func (w *Watcher) publishDegraded() {
	u := &w.unwatched
	u.published = time.Now()
	var d *Degraded
	if len(u.last) > 0 {
		d = &Degraded{Reason: u.reason, Count: len(u.last)}
		for rel := range u.last {
			if rel != "" && u.last[parentDir(rel)] {
				continue // under an unwatched directory: named by it
			}
			d.Dirs = append(d.Dirs, rel)
		}
		slices.SortFunc(d.Dirs, strings.Compare)
		if len(d.Dirs) > DegradedShown {
			d.Dirs = d.Dirs[:DegradedShown]
		}
	}
	w.smu.Lock()
	w.degradedInfo = d
	w.smu.Unlock()
}
