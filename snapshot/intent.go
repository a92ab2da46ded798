package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// persistIntent cuts the restore's guard checkpoint and stores the plan as
// an intent, in one commit, and makes it durable with one sync: from then
// on a crash at any point is finished by the next Open, and the guard
// exists before the first file changes. (They cannot be torn apart: a
// commit is all or nothing, and a sync makes every commit before it
// durable.)
func (ws *Workspace) persistIntent(target store.Checkpoint, opts RestoreOptions, actions []store.IntentAction) (store.Intent, store.Checkpoint, error) {
	in := store.Intent{TargetID: target.ID, Paths: opts.Paths, Actions: actions}
	if opts.CurrentID != "" {
		in.TargetID = opts.CurrentID
	}
	name := target.ID
	if name == "" {
		name = fmt.Sprintf("@%d", target.Seq) // a version (VersionTarget)
	}
	return ws.persistGuarded(in, "before restoring "+name)
}

// persistGuarded is persistIntent for an intent that is made already: it
// fills in the guard and the current checkpoint it replaces.
func (ws *Workspace) persistGuarded(in store.Intent, message string) (store.Intent, store.Checkpoint, error) {
	in.CreatedAt = time.Now().UTC()
	var guard store.Checkpoint
	err := ws.st.Write(func(w *store.Writer) error {
		s, err := w.Workspace()
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		in.PrevID = s.CurrentCheckpointID
		guard, err = putCheckpoint(w, ReasonPreRestoreGuard, message, store.Attr{}, ws.unreadable.paths())
		if err != nil {
			return err
		}
		in.GuardID = guard.ID
		if err := w.PutIntent(in); err != nil {
			return err
		}
		crashPoint(crashCommit)
		return nil
	})
	if err != nil {
		return in, guard, err
	}
	if err := ws.st.Sync(); err != nil {
		return in, guard, err
	}
	crashPoint(crashIntent)
	holdRestorePoint()
	return in, guard, nil
}

// unfinished drops from an intent found at Open the actions whose path
// holds neither what it held when the restore was planned nor its target:
// it was written after the restore (the commit that recorded the restore
// was lost in a power cut while the writes after it were not, or the
// person edited it before the next Open). Such content is in no checkpoint,
// so writing over it could not be undone; it is left for the next scan to
// capture, and shows as drift. The paths left are returned.
func (ws *Workspace) unfinished(root *os.Root, actions []store.IntentAction) ([]store.IntentAction, []string) {
	var keep []store.IntentAction
	var left []string
	for _, a := range actions {
		if a.Before == nil || ws.holds(root, a.Path, a.State) || ws.holds(root, a.Path, *a.Before) {
			keep = append(keep, a)
			continue
		}
		left = append(left, a.Path)
	}
	return keep, left
}

// holds reports whether the path on disk has the content of want (kind,
// bytes, executable bit). A directory or special file counts as no file:
// ckpt captures neither; so does a path under a file.
func (ws *Workspace) holds(root *os.Root, p string, want store.State) bool {
	disk := store.State{}
	info, err := root.Lstat(p)
	switch {
	case err == nil:
		disk = statState(info)
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return false // unreadable: not known to be either
	}
	if !disk.Exists() || !want.Exists() {
		return disk.Kind == want.Kind
	}
	if disk.Kind != want.Kind || disk.Hash.Size != want.Hash.Size || disk.Exec() != want.Exec() {
		return false
	}
	c, err := ws.content(root, p, disk)
	return err == nil && c.hash == want.Hash
}
