package watcher

import "github.com/ckptdev/ckpt/internal/fsutil"

// InternalPrefix starts the names of ckpt's own files in a workspace (restore
// temp files, sync cookies). They are never captured.
const InternalPrefix = fsutil.InternalPrefix

// IsInternal reports whether the base name belongs to one of ckpt's own files:
// it starts with InternalPrefix.
func IsInternal(name string) bool { return fsutil.IsInternal(name) }

// alwaysIgnoredName reports whether a path component is never captured,
// whatever the ignore rules say: a .git directory or file, or one of ckpt's
// own names.
func alwaysIgnoredName(name string) bool {
	return name == ".git" || IsInternal(name)
}
