package drift

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// History lists every version of req.Path, newest first.
func (e *Engine) History(ctx context.Context, req api.HistoryRequest) (api.History, error) {
	if req.N < 0 {
		return api.History{}, invalid("-n %d is not a count", req.N)
	}
	ps, err := CleanPaths([]string{req.Path})
	if err != nil {
		return api.History{}, err
	}
	p := ps[0]
	if p == "" {
		return api.History{}, invalid("history needs a path inside the workspace, not its root")
	}
	if err := e.Sync(ctx); err != nil {
		return api.History{}, err
	}
	vs, err := e.ws.History(p, req.N)
	if err != nil {
		return api.History{}, err
	}
	if len(vs) == 0 {
		return api.History{}, invalid("no recorded versions of %s (ckpt records files and symlinks that are not ignored)", p)
	}
	h := api.History{Path: api.QuotePath(p), Versions: make([]api.PathVersion, 0, len(vs))}
	for i, v := range vs {
		older := store.State{}
		if i+1 < len(vs) {
			older = vs[i+1].State
		}
		h.Versions = append(h.Versions, versionOf(v, older))
	}
	return h, nil
}

// versionOf is a version as the CLI shows it; older is the version before
// it (Absent for the first).
func versionOf(v snapshot.Version, older store.State) api.PathVersion {
	a := v.Change.Attr
	out := api.PathVersion{
		Seq: v.Seq, By: byOf(a), SessionID: a.Session, RunID: a.Run, ToolCallID: a.Call, SharedWith: SharedWith(a),
		CheckpointID: v.Checkpoint.ID, Ref: FormatVersionRef(v.At), Size: v.State.Hash.Size,
	}
	switch {
	case !v.State.Exists():
		out.Kind = store.Deleted.String()
	case !older.Exists():
		out.Kind = store.Added.String()
	default:
		out.Kind = store.Modified.String()
	}
	if v.Pruned {
		out.By = "unknown"
	} else {
		out.At = time.Unix(0, v.Change.Time).UTC()
		out.Kind = v.Change.Kind.String()
	}
	switch v.State.Kind {
	case store.File:
		out.Type, out.Mode = "file", fmt.Sprintf("%04o", uint32(v.State.Mode.Perm()))
	case store.Symlink:
		out.Type, out.Mode = "symlink", fmt.Sprintf("%04o", uint32(v.State.Mode.Perm()))
	}
	if !v.State.Exists() {
		out.Size = 0
	}
	return out
}

// FormatVersionRef is the reference to journal position seq that
// `ckpt restore` accepts: "@" and the seq.
func FormatVersionRef(seq uint64) string { return "@" + strconv.FormatUint(seq, 10) }

// ParseVersionRef reads a version reference: "@" and a journal seq in
// decimal, at least 1, without sign or leading zeros. ok is false for
// anything that does not start with "@" (a checkpoint id never does); an
// id that does but is not a reference is an error.
func ParseVersionRef(ref string) (seq uint64, ok bool, err error) {
	if len(ref) == 0 || ref[0] != '@' {
		return 0, false, nil
	}
	digits := ref[1:]
	bad := len(digits) == 0 || len(digits) > 20 || digits[0] == '0'
	for i := 0; i < len(digits) && !bad; i++ {
		bad = digits[i] < '0' || digits[i] > '9'
	}
	if !bad {
		seq, err = strconv.ParseUint(digits, 10, 64)
		bad = err != nil
	}
	if bad {
		return 0, true, invalid("%q is not a version reference (@ and a journal position, as ckpt history gives it)", ref)
	}
	return seq, true, nil
}

// restoreVersion restores the named paths to their state at journal
// position seq (a version reference from history). It is exact over those
// paths, and the current checkpoint stays as it is: no checkpoint stands
// for what the workspace is after it.
func (e *Engine) restoreVersion(ctx context.Context, seq uint64, req api.RestoreRequest) (api.RestoreResult, error) {
	ref := FormatVersionRef(seq)
	if len(req.Paths) == 0 {
		return api.RestoreResult{}, invalid("restoring version %s needs the paths to restore (ckpt restore %s PATH...)", ref, ref)
	}
	target, err := e.ws.VersionTarget(seq)
	if errors.Is(err, snapshot.ErrBadVersion) {
		return api.RestoreResult{}, Invalid(err)
	}
	if err != nil {
		return api.RestoreResult{}, err
	}
	cur, err := e.ws.Current()
	if err != nil {
		return api.RestoreResult{}, err
	}
	req.Exact = true
	res, err := e.restore(ctx, target, req, cur.ID)
	res.CheckpointID = ref
	return res, err
}
