package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ckptdev/ckpt/fault"
)

// ErrUnsafeStateDir means the state directory, or a directory on the way
// to it, could be changed by someone other than the user (and root): ckpt
// would then write its stores where that someone decides (a planted
// symlink redirects a write onto any file the user may write).
var ErrUnsafeStateDir = fault.Sentinel(fault.Refused, "unsafe state directory")

// maxSymlinkHops bounds the symlinks followed on the way to the state
// directory, as the kernel's ELOOP does.
const maxSymlinkHops = 40

// PrepareStateDir makes dir fit to hold ckpt's stores, the way ssh checks
// its files: it creates dir 0700 (and missing parents 0700) whatever the
// umask, and refuses, with ErrUnsafeStateDir and how to fix it, a state
// directory that is not a directory, not owned by the user, or writable by
// group or others, and one reached through a directory (or a symlink in a
// directory) that someone other than the user and root owns, or may write
// without the sticky bit (/tmp is fine). A symlink as the state directory
// is followed; its target must pass the same checks.
func PrepareStateDir(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	uid := os.Getuid()
	real, exists, err := resolveChecked(dir, uid)
	if err != nil {
		return err
	}
	if !exists {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create the state directory: %w", err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("create the state directory: %w", err)
		}
		if real, _, err = resolveChecked(dir, uid); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return err
	}
	return checkStateDir(dir, real, fi, uid)
}

// checkStateDir is the rule for the state directory itself (real is where
// dir leads): a directory of the user's that only the user may write.
func checkStateDir(dir, real string, fi fs.FileInfo, uid int) error {
	named := dir
	if real != dir {
		named = fmt.Sprintf("%s (-> %s)", dir, real)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafeStateDir, named)
	}
	if owner := ownerOf(fi); owner != uid {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d): use a state directory of your own (state_dir, CKPT_STATE_DIR), or chown %d %s if it is yours",
			ErrUnsafeStateDir, named, owner, uid, uid, real)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by group or others (mode %04o): chmod 700 %s",
			ErrUnsafeStateDir, named, perm, real)
	}
	return nil
}

// resolveChecked follows p from / as the kernel would, checking every
// directory it passes through (checkAncestor), and every directory that
// holds a symlink it follows. It returns where p leads and whether that
// exists; a missing component ends the walk there (what ckpt creates below
// a checked directory is the user's).
func resolveChecked(p string, uid int) (real string, exists bool, err error) {
	if err := checkAncestor("/", uid); err != nil {
		return "", false, err
	}
	todo := splitPath(p)
	cur := "/"
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		if c == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{next}, todo...)...), false, nil
		}
		if err != nil {
			return "", false, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > maxSymlinkHops {
				return "", false, fmt.Errorf("%w: too many symlinks on the way to %s", ErrUnsafeStateDir, p)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", false, err
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			todo = append(splitPath(target), todo...)
			continue
		}
		if len(todo) == 0 {
			return next, true, nil
		}
		if !fi.IsDir() {
			return "", false, fmt.Errorf("%w: %s, on the way to %s, is not a directory", ErrUnsafeStateDir, next, p)
		}
		if err := checkAncestor(next, uid); err != nil {
			return "", false, err
		}
		cur = next
	}
	return cur, true, nil
}

// checkAncestor is the rule for a directory on the way to the state
// directory: owned by the user or root, and writable by no one else unless
// sticky (no one else can then rename or remove what is in it).
func checkAncestor(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if owner := ownerOf(fi); owner != uid && owner != 0 {
		return fmt.Errorf("%w: %s, on the way to the state directory, is owned by uid %d (neither you nor root), who could swap what is in it: use a state directory on a path that only you and root control (state_dir, CKPT_STATE_DIR)",
			ErrUnsafeStateDir, dir, owner)
	}
	if perm := fi.Mode(); perm.Perm()&0o022 != 0 && perm&fs.ModeSticky == 0 {
		return fmt.Errorf("%w: %s, on the way to the state directory, is writable by group or others (mode %04o): chmod go-w %s, or use another state directory",
			ErrUnsafeStateDir, dir, perm.Perm(), dir)
	}
	return nil
}

func ownerOf(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// splitPath is p's components, without empty ones and ".".
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}
