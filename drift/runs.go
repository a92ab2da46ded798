package drift

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

func checkRun(session, run string) error {
	if session == "" || run == "" {
		return invalid("--session and --run are required")
	}
	if err := checkName("session", session); err != nil {
		return err
	}
	return checkName("run", run)
}

// checkName refuses ids that could not be told apart in the store's keys:
// control characters (the keys separate ids with NUL) and very long ones.
func checkName(what, id string) error {
	if len(id) > 256 {
		return invalid("%s id is longer than 256 bytes", what)
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f {
			return invalid("%s id %q contains a control character", what, id)
		}
	}
	return nil
}

// RunStart begins a run: it decides the run's baseline. If the workspace
// is as its current checkpoint left it, that checkpoint is the baseline;
// otherwise a pre_run_drift_rebase checkpoint is cut now and becomes it.
func (e *Engine) RunStart(ctx context.Context, session, run string) (RunStart, error) {
	if err := checkRun(session, run); err != nil {
		return RunStart{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return RunStart{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	res := RunStart{SessionID: session, RunID: run, Drift: []Change{}}
	if rec, err := e.run(session, run); err == nil {
		if rec.EndID != "" {
			return res, invalid("run %s/%s has ended; start a new run id", session, run)
		}
		res.PrevCheckpointID, res.WorkspaceDrifted = rec.BaselineID, rec.Drifted
		if rec.Drifted {
			res.Warning = driftWarning(len(rec.Drift), rec.BaselineID)
			for _, p := range rec.Drift {
				res.Drift = append(res.Drift, Change{Path: p})
			}
		}
		return res, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return res, err
	}
	cur, err := e.ws.Current()
	if err != nil {
		return res, err
	}
	attr := store.Attr{Session: session, Run: run}
	open := func(a store.Active) store.Active { return withRun(a, session, run) }
	fp := e.ws.Fingerprint()
	baseline := cur
	var drift []snapshot.FileChange
	var openSeq uint64
	if fp.Sum != cur.Fingerprint || fp.Count != cur.Files {
		if drift, err = e.ws.Drift(cur, nil); err != nil {
			return res, err
		}
		if baseline, err = e.ws.CutActive(snapshot.ReasonPreRunDriftRebase, "", attr, open); err != nil {
			return res, err
		}
		openSeq = baseline.Seq
	} else if openSeq, err = e.ws.UpdateActive(open); err != nil {
		return res, err
	}
	rec := store.Run{
		Session: session, Run: run, BaselineID: baseline.ID,
		StartedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC(), StartSeq: baseline.Seq, OpenSeq: openSeq,
	}
	if len(drift) > 0 {
		rec.Drifted = true
		res.WorkspaceDrifted = true
		res.Warning = driftWarning(len(drift), baseline.ID)
		for _, fc := range drift {
			rec.Drift = append(rec.Drift, fc.Path)
			res.Drift = append(res.Drift, Change{Path: fc.Path, Kind: fc.Kind.String(), By: who(fc)})
		}
	}
	res.PrevCheckpointID = baseline.ID
	if err := e.putRun(rec); err != nil {
		return res, err
	}
	return res, e.ws.SetCurrent(baseline)
}

func driftWarning(n int, baseline string) string {
	return fmt.Sprintf("the workspace changed outside any run (%d %s) since the last checkpoint; the baseline was re-anchored to %s", n, map[bool]string{true: "path", false: "paths"}[n == 1], baseline)
}

// RunEnd ends a run: it cuts end_of_turn, which becomes the current
// checkpoint, and reports the run's net changes.
func (e *Engine) RunEnd(ctx context.Context, session, run string) (RunEnd, error) {
	if err := checkRun(session, run); err != nil {
		return RunEnd{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return RunEnd{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	rec, warning, err := e.baseline(session, run)
	if err != nil {
		return RunEnd{}, err
	}
	if rec.EndID == "" {
		var calls []string // its windows still open: they end with it
		closeRun := func(a store.Active) store.Active {
			for _, r := range a.Runs {
				if r.Session == session && r.Run == run {
					calls = r.Calls
				}
			}
			return withoutRun(a, session, run)
		}
		end, err := e.ws.CutActive(snapshot.ReasonEndOfTurn, "", store.Attr{Session: session, Run: run}, closeRun)
		if err != nil {
			return RunEnd{}, err
		}
		if err := e.endWindows(session, run, calls, end.Seq); err != nil {
			return RunEnd{}, err
		}
		rec.EndID, rec.EndSeq = end.ID, end.Seq
		rec.EndedAt, rec.UpdatedAt = time.Now().UTC(), time.Now().UTC()
		if err := e.putRun(rec); err != nil {
			return RunEnd{}, err
		}
		if err := e.ws.SetCurrent(end); err != nil {
			return RunEnd{}, err
		}
	}
	d, err := e.runDiff(rec, rec.EndID, warning, false)
	return RunEnd{
		SessionID: session, RunID: run, CheckpointID: d.CheckpointID, PrevCheckpointID: d.PrevCheckpointID,
		WorkspaceDrifted: d.WorkspaceDrifted, Warning: d.Warning, Files: d.Files,
	}, err
}

// RunDiff is what run R changed: from its baseline to req.Checkpoint, its
// end checkpoint, or the working tree while it is open.
func (e *Engine) RunDiff(ctx context.Context, req RunRequest) (RunDiff, error) {
	if err := checkRun(req.Session, req.Run); err != nil {
		return RunDiff{}, err
	}
	if req.Checkpoint != "" {
		if _, err := e.resolve(req.Checkpoint); err != nil {
			return RunDiff{}, err
		}
	}
	rec, warning, err := e.baseline(req.Session, req.Run)
	if err != nil {
		return RunDiff{}, err
	}
	to := req.Checkpoint
	if to == "" {
		to = rec.EndID
	}
	if to == "" {
		if err := e.Sync(ctx); err != nil {
			return RunDiff{}, err
		}
	}
	return e.runDiff(rec, to, warning, req.Patch)
}

func (e *Engine) runDiff(rec store.Run, to, warning string, patch bool) (RunDiff, error) {
	base, err := e.ws.Checkpoint(rec.BaselineID)
	if err != nil {
		return RunDiff{}, err
	}
	toSeq := e.ws.Head()
	if to != "" {
		cp, err := e.resolve(to)
		if err != nil {
			return RunDiff{}, err
		}
		if !belongs(cp, rec) {
			return RunDiff{}, invalid("checkpoint %s does not belong to run %s/%s", to, rec.Session, rec.Run)
		}
		if cp.Seq < base.Seq {
			return RunDiff{}, invalid("checkpoint %s is older than run %s/%s's baseline", to, rec.Session, rec.Run)
		}
		toSeq = cp.Seq
	}
	sh := newSharing(runOpening(rec))
	fcs, err := e.ws.Diff(base.Seq, toSeq, nil, sh.note)
	if err != nil {
		return RunDiff{}, err
	}
	d := RunDiff{CheckpointID: to, PrevCheckpointID: base.ID, WorkspaceDrifted: rec.Drifted, Files: changesOf(fcs)}
	sh.mark(d.Files)
	d.Warning = warning
	if warning == "" && rec.Drifted {
		d.Warning = driftWarning(len(rec.Drift), base.ID)
	}
	ids, err := e.firstTouches(base, fcs)
	if err != nil {
		return RunDiff{}, err
	}
	for i := range fcs {
		d.Files[i].CheckpointID = ids[i]
	}
	if patch {
		e.addPatches(d.Files, fcs)
	}
	return d, nil
}

// belongs reports whether cp is one of the run's checkpoints.
func belongs(cp store.Checkpoint, rec store.Run) bool {
	return (cp.Session == rec.Session && cp.Run == rec.Run) || cp.ID == rec.BaselineID || cp.ID == rec.EndID
}

// baseline is the run's persisted record or, when none was recorded, one
// made from the nearest checkpoint before the run, with a warning.
func (e *Engine) baseline(session, run string) (store.Run, string, error) {
	rec, err := e.run(session, run)
	if err == nil {
		return rec, "", nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return rec, "", err
	}
	rec = store.Run{Session: session, Run: run}
	cps, err := e.ws.Checkpoints(0)
	if err != nil {
		return rec, "", err
	}
	// Newest first: the run's oldest checkpoint is the last of its own; the
	// baseline is the first checkpoint after that which is not the run's.
	owned := -1
	for i, cp := range cps {
		if cp.Session == session && cp.Run == run {
			owned = i
			if cp.Reason == snapshot.ReasonEndOfTurn && rec.EndID == "" {
				rec.EndID, rec.EndSeq = cp.ID, cp.Seq
			}
		}
	}
	var base store.Checkpoint
	switch {
	case owned >= 0 && owned+1 < len(cps):
		base = cps[owned+1]
	case owned >= 0:
		base = cps[owned]
	default:
		if base, err = e.ws.Current(); err != nil {
			return rec, "", err
		}
	}
	rec.BaselineID, rec.StartSeq = base.ID, base.Seq
	return rec, fmt.Sprintf("no baseline was recorded for run %s/%s; diffing from the nearest checkpoint before it, %s", session, run, base.ID), nil
}

func (e *Engine) run(session, run string) (store.Run, error) {
	var rec store.Run
	err := e.ws.Store().View(func(r *store.Reader) (err error) {
		rec, err = r.Run(session, run)
		return err
	})
	return rec, err
}

func (e *Engine) putRun(rec store.Run) error {
	return e.ws.Store().Write(func(w *store.Writer) error { return w.PutRun(rec) })
}
