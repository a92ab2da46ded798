package watcher

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// maxUserWatchesFile is where Linux publishes the per-user inotify watch
// limit; a variable so that tests can point it elsewhere.
var maxUserWatchesFile = "/proc/sys/fs/inotify/max_user_watches"

// recommendedWatches is the limit suggested when the current one is too low
// (the value VS Code and syncthing recommend), unless the workspace needs
// more.
const recommendedWatches = 524288

// CheckWatchLimit compares the number of directories to watch with the
// per-user inotify watch limit (fs.inotify.max_user_watches). It returns nil
// when the limit is comfortably above dirs (other programs of the same user,
// editors in particular, hold watches too) or cannot be read (not Linux), and
// otherwise an error that says what to run.
func CheckWatchLimit(dirs int) error {
	max, err := readWatchLimit()
	if err != nil {
		return nil
	}
	need := dirs + dirs/4 + 1024 // headroom for growth and for other programs
	if max >= need {
		return nil
	}
	return fmt.Errorf("watching %d directories needs more inotify watches than fs.inotify.max_user_watches=%d allows; %s",
		dirs, max, watchLimitHint(need))
}

// readWatchLimit reads fs.inotify.max_user_watches.
func readWatchLimit() (int, error) {
	b, err := os.ReadFile(maxUserWatchesFile)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// watchLimitHint says how to raise the limit to at least need watches.
func watchLimitHint(need int) string {
	v := recommendedWatches
	for v < need*2 {
		v *= 2
	}
	return fmt.Sprintf("raise it with: sudo sysctl fs.inotify.max_user_watches=%d "+
		"(to keep it after a reboot: echo fs.inotify.max_user_watches=%d | sudo tee /etc/sysctl.d/90-ckpt.conf)", v, v)
}

// isWatchLimit reports whether err from adding a watch means the inotify
// watch limit (ENOSPC) or the kernel's memory for watches (ENOMEM) ran out.
func isWatchLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.ENOMEM)
}

// watchLimitError turns an ENOSPC from inotify_add_watch into an actionable
// message for the directory dir, given how many directories are watched.
func watchLimitError(dir string, watched int, err error) error {
	max, rerr := readWatchLimit()
	limit := "fs.inotify.max_user_watches"
	if rerr == nil {
		limit = fmt.Sprintf("%s=%d", limit, max)
	}
	return fmt.Errorf("cannot watch %q (%d directories watched): inotify watch limit reached (%s): %w; "+
		"falling back to full re-walks (at every sync and every %v) until every directory can be watched; %s",
		dir, watched, limit, err, DegradedRescanInterval, watchLimitHint(watched+watched/4+1024))
}
