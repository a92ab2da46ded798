package drift

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
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
// It is one commit (see startRun); a run started already is answered as
// it started, and whatever a crash left undone of its start is done.
func (e *Engine) RunStart(ctx context.Context, session, run string) (api.RunStart, error) {
	if err := checkRun(session, run); err != nil {
		return api.RunStart{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return api.RunStart{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var res api.RunStart
	err := e.ws.Update(func(tx *snapshot.Tx) error {
		rec, err := tx.Run(session, run)
		switch {
		case err == nil && rec.EndID != "":
			return invalid("run %s/%s has ended; start a new run id", session, run)
		case err == nil:
			res, err = resumeRun(tx, rec)
		case errors.Is(err, store.ErrNotFound):
			res, err = startRun(tx, session, run)
		}
		return err
	})
	if err != nil {
		return api.RunStart{}, err
	}
	return res, nil
}

func driftWarning(n int, baseline string) string {
	return fmt.Sprintf("the workspace changed outside any run (%d %s) since the last checkpoint; the baseline was re-anchored to %s", n, map[bool]string{true: "path", false: "paths"}[n == 1], baseline)
}

// RunEnd ends a run: it cuts end_of_turn, which becomes the current
// checkpoint, closes the run and its windows still open, in one commit
// (endRun), and reports the run's net changes.
func (e *Engine) RunEnd(ctx context.Context, session, run string) (api.RunEnd, error) {
	return e.RunEndAsOf(ctx, session, run, time.Time{})
}

// RunEndAsOf is RunEnd as of moment asOf (now, if zero or later): the
// end_of_turn stands at the journal position of that moment
// (snapshot.Tx.SeqAsOf), its windows still open end there too, and every
// change captured after it is no longer the run's: it is drift, the
// person's. A run that has ended is answered as it ended.
func (e *Engine) RunEndAsOf(ctx context.Context, session, run string, asOf time.Time) (api.RunEnd, error) {
	if err := checkRun(session, run); err != nil {
		return api.RunEnd{}, err
	}
	if err := e.Sync(ctx); err != nil {
		return api.RunEnd{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	rec, warning, err := e.baseline(session, run)
	if err != nil {
		return api.RunEnd{}, err
	}
	err = e.ws.Update(func(tx *snapshot.Tx) error {
		if rec.EndID != "" {
			return closeRun(tx, rec) // should a crash have left it open
		}
		rec, err = endRun(tx, rec, asOf)
		return err
	})
	if err != nil {
		return api.RunEnd{}, err
	}
	d, err := e.runDiff(rec, rec.EndID, warning, false)
	return api.RunEnd{
		SessionID: session, RunID: run, CheckpointID: d.CheckpointID, PrevCheckpointID: d.PrevCheckpointID,
		WorkspaceDrifted: d.WorkspaceDrifted, Warning: d.Warning, Files: d.Files,
	}, err
}

// RunDiff is what run R changed: from its baseline to req.Checkpoint, its
// end checkpoint, or the working tree while it is open.
func (e *Engine) RunDiff(ctx context.Context, req api.RunRequest) (api.RunDiff, error) {
	if err := checkRun(req.Session, req.Run); err != nil {
		return api.RunDiff{}, err
	}
	if req.Checkpoint != "" {
		if _, err := e.resolve(req.Checkpoint); err != nil {
			return api.RunDiff{}, err
		}
	}
	rec, warning, err := e.baseline(req.Session, req.Run)
	if err != nil {
		return api.RunDiff{}, err
	}
	to := req.Checkpoint
	if to == "" {
		to = rec.EndID
	}
	if to == "" {
		if err := e.Sync(ctx); err != nil {
			return api.RunDiff{}, err
		}
	}
	return e.runDiff(rec, to, warning, req.Patch)
}

func (e *Engine) runDiff(rec store.Run, to, warning string, patch bool) (api.RunDiff, error) {
	base, err := e.ws.Checkpoint(rec.BaselineID)
	if err != nil {
		return api.RunDiff{}, err
	}
	toSeq := e.ws.Head()
	if to != "" {
		cp, err := e.resolve(to)
		if err != nil {
			return api.RunDiff{}, err
		}
		if !belongs(cp, rec) {
			return api.RunDiff{}, invalid("checkpoint %s does not belong to run %s/%s", to, rec.Session, rec.Run)
		}
		if cp.Seq < base.Seq {
			return api.RunDiff{}, invalid("checkpoint %s is older than run %s/%s's baseline", to, rec.Session, rec.Run)
		}
		toSeq = cp.Seq
	}
	sh := newSharing(runOpening(rec))
	fcs, err := e.ws.Diff(base.Seq, toSeq, nil, sh.note)
	if err != nil {
		return api.RunDiff{}, err
	}
	d := api.RunDiff{CheckpointID: to, PrevCheckpointID: base.ID, WorkspaceDrifted: rec.Drifted, Files: changesOf(fcs)}
	sh.mark(d.Files)
	d.Warning = warning
	if warning == "" && rec.Drifted {
		d.Warning = driftWarning(len(rec.Drift), base.ID)
	}
	ids, err := e.firstTouches(base, fcs)
	if err != nil {
		return api.RunDiff{}, err
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
// made from the nearest checkpoint before the run, with a warning. The
// warning is part of the record: once run end persists it, every later
// diff of the run repeats it.
func (e *Engine) baseline(session, run string) (store.Run, string, error) {
	rec, err := e.run(session, run)
	if err == nil {
		return rec, rec.Warning, nil
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
	rec.Warning = fmt.Sprintf("no baseline was recorded for run %s/%s; diffing from the nearest checkpoint before it, %s", session, run, base.ID)
	return rec, rec.Warning, nil
}

func (e *Engine) run(session, run string) (store.Run, error) { return e.ws.Run(session, run) }
