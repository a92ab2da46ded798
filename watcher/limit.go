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

// userNSWatchesFile is the watch limit of the current user namespace
// (Linux 5.11 and later), which binds besides the system-wide one.
var userNSWatchesFile = "/proc/sys/user/max_inotify_watches"

// readWatchLimit reads fs.inotify.max_user_watches, or the current user
// namespace's limit if that is lower.
func readWatchLimit() (int, error) {
	b, err := os.ReadFile(maxUserWatchesFile)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, err
	}
	if b, err := os.ReadFile(userNSWatchesFile); err == nil {
		if m, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && m < n {
			n = m
		}
	}
	return n, nil
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

// watchLimitReason is the degraded mode's reason when err (from adding a
// watch) means the watch limit ran out: the limit and what to set.
func watchLimitReason(err error) string {
	limit := "fs.inotify.max_user_watches"
	max, rerr := readWatchLimit()
	if rerr == nil {
		limit = fmt.Sprintf("%s=%d", limit, max)
	}
	if errors.Is(err, syscall.ENOMEM) {
		return "the kernel has no memory for more inotify watches; unwatched directories are re-walked at every sync and every " + DegradedRescanInterval.String()
	}
	need := recommendedWatches
	if rerr == nil {
		need = max * 2
	}
	return fmt.Sprintf("inotify watch limit reached (%s); unwatched directories are re-walked at every sync and every %v; %s",
		limit, DegradedRescanInterval, watchLimitHint(need))
}

// maxUserInstancesFile is where Linux publishes the per-user limit of
// inotify instances (one per watched workspace).
var maxUserInstancesFile = "/proc/sys/fs/inotify/max_user_instances"

// recommendedInstances is the instance limit suggested when it is too low.
const recommendedInstances = 1024

// CheckInstanceLimit compares the inotify instances this user holds now
// (every process of the same uid, found in /proc) plus more, the ones
// about to be made, with fs.inotify.max_user_instances. It returns nil
// when they fit or nothing can be read, else an error that says what to
// set.
func CheckInstanceLimit(more int) error {
	b, err := os.ReadFile(maxUserInstancesFile)
	if err != nil {
		return nil
	}
	max, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return nil
	}
	used := inotifyInstances(os.Getuid())
	if used+more <= max {
		return nil
	}
	return fmt.Errorf("this user holds %d inotify instances and ckptd needs %d more, over fs.inotify.max_user_instances=%d; %s",
		used, more, max, instanceLimitHint(used+more))
}

// instanceLimitHint says how to raise the instance limit to at least need.
func instanceLimitHint(need int) string {
	v := recommendedInstances
	for v < need*2 {
		v *= 2
	}
	return fmt.Sprintf("raise it with: sudo sysctl fs.inotify.max_user_instances=%d "+
		"(to keep it after a reboot: echo fs.inotify.max_user_instances=%d | sudo tee -a /etc/sysctl.d/90-ckpt.conf)", v, v)
}

// inotifyInstances counts the inotify file descriptors of uid's processes.
func inotifyInstances(uid int) int {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range procs {
		if p.Name()[0] < '0' || p.Name()[0] > '9' {
			continue
		}
		info, err := os.Stat("/proc/" + p.Name())
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		fds, err := os.ReadDir("/proc/" + p.Name() + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if t, err := os.Readlink("/proc/" + p.Name() + "/fd/" + fd.Name()); err == nil && t == "anon_inode:inotify" {
				n++
			}
		}
	}
	return n
}

// instanceLimitError turns the failure to make an inotify instance into
// an actionable message when the instance limit is the cause (EMFILE).
func instanceLimitError(err error) error {
	if !errors.Is(err, syscall.EMFILE) {
		return err
	}
	limit := "fs.inotify.max_user_instances"
	if b, rerr := os.ReadFile(maxUserInstancesFile); rerr == nil {
		limit += "=" + strings.TrimSpace(string(b))
	}
	return fmt.Errorf("cannot make an inotify instance: the per-user limit (%s) or the open-file limit is reached: %w; %s",
		limit, err, instanceLimitHint(inotifyInstances(os.Getuid())+1))
}
