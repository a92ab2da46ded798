package drift

import (
	"errors"
	"slices"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// The run and tool bookkeeping, each operation one snapshot.Tx: one
// commit, with no capture between what it reads and what it writes. A
// store written by earlier versions, which committed each step apart, may
// hold an operation a crash cut short; doing the operation again finishes
// it (resumeRun, resumeWindow, closeRun).

// startRun records a new run: its baseline (the current checkpoint, or a
// pre_run_drift_rebase cut now when the workspace drifted from it, whose
// drift the result lists: exactly what the baseline holds beyond the
// checkpoint before), made current, and the run opened.
func startRun(tx *snapshot.Tx, session, run string) (api.RunStart, error) {
	res := api.RunStart{SessionID: session, RunID: run, Drift: []api.Change{}}
	cur, err := tx.Current()
	if err != nil {
		return res, err
	}
	baseline := cur
	by := authors{}
	var drift []snapshot.FileChange
	if tx.Drifted(cur) {
		if drift, err = tx.Drift(cur, nil, by.note); err != nil {
			return res, err
		}
		if baseline, err = tx.Cut(snapshot.ReasonPreRunDriftRebase, "", store.Attr{Session: session, Run: run}); err != nil {
			return res, err
		}
	}
	now := time.Now().UTC()
	rec := store.Run{
		Session: session, Run: run, BaselineID: baseline.ID,
		StartedAt: now, UpdatedAt: now, StartSeq: baseline.Seq, OpenSeq: tx.Head(),
	}
	if len(drift) > 0 {
		rec.Drifted = true
		res.WorkspaceDrifted = true
		res.Warning = driftWarning(len(drift), baseline.ID)
		for _, fc := range drift {
			rec.Drift = append(rec.Drift, fc.Path)
			res.Drift = append(res.Drift, api.Change{Path: api.QuotePath(fc.Path), Kind: fc.Kind.String(), By: by.who(fc.Path)})
		}
	}
	res.PrevCheckpointID = baseline.ID
	tx.SetActive(withRun(tx.Active(), session, run))
	if err := tx.PutRun(rec); err != nil {
		return res, err
	}
	return res, tx.SetCurrent(baseline)
}

// resumeRun answers a run start for a run already started, and finishes
// the start if a crash cut it short: the run is opened if it is not, and
// its baseline made current if nothing has moved the current checkpoint
// since the run started.
func resumeRun(tx *snapshot.Tx, rec store.Run) (api.RunStart, error) {
	res := api.RunStart{SessionID: rec.Session, RunID: rec.Run, Drift: []api.Change{},
		PrevCheckpointID: rec.BaselineID, WorkspaceDrifted: rec.Drifted}
	if rec.Drifted {
		res.Warning = driftWarning(len(rec.Drift), rec.BaselineID)
		for _, p := range rec.Drift {
			res.Drift = append(res.Drift, api.Change{Path: api.QuotePath(p)})
		}
	}
	if !isOpen(tx.Active(), rec.Session, rec.Run) {
		tx.SetActive(withRun(tx.Active(), rec.Session, rec.Run))
	}
	s, err := tx.State()
	if err != nil || s.CurrentCheckpointID == rec.BaselineID || !s.UpdatedAt.Before(rec.StartedAt) {
		return res, err
	}
	base, err := tx.Checkpoint(rec.BaselineID)
	if errors.Is(err, store.ErrNotFound) {
		return res, nil // pruned: nothing to make current
	}
	if err != nil {
		return res, err
	}
	return res, tx.SetCurrent(base)
}

// endRun cuts the run's end_of_turn, makes it current, closes the run and
// its windows still open (what is captured after the run is no one's),
// and records the end. With asOf (not zero, nor later than now) the end
// stands at that moment's journal position, and the entries after it are
// disowned: captured after the run's end, they are the person's.
func endRun(tx *snapshot.Tx, rec store.Run, asOf time.Time) (store.Run, error) {
	now := time.Now().UTC()
	seq := tx.Head()
	if !asOf.IsZero() && asOf.Before(now) {
		var err error
		if seq, err = tx.SeqAsOf(runOpening(rec).from, asOf); err != nil {
			return rec, err
		}
		if err := tx.Disown(seq, rec.Session, rec.Run); err != nil {
			return rec, err
		}
		now = asOf.UTC()
	}
	end, err := tx.CutAt(seq, snapshot.ReasonEndOfTurn, "", store.Attr{Session: rec.Session, Run: rec.Run})
	if err != nil {
		return rec, err
	}
	rec.EndID, rec.EndSeq, rec.EndedAt, rec.UpdatedAt = end.ID, end.Seq, now, time.Now().UTC()
	if err := closeRun(tx, rec); err != nil {
		return rec, err
	}
	if err := tx.PutRun(rec); err != nil {
		return rec, err
	}
	return rec, tx.SetCurrent(end)
}

// closeRun takes an ended run out of the open set and ends its windows
// still open at its end.
func closeRun(tx *snapshot.Tx, rec store.Run) error {
	a := tx.Active()
	i := slices.IndexFunc(a.Runs, func(r store.ActiveRun) bool { return r.Session == rec.Session && r.Run == rec.Run })
	if i < 0 {
		return nil
	}
	for _, call := range a.Runs[i].Calls {
		tw, err := tx.ToolWindow(rec.Session, rec.Run, call)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if tw.EndSeq == 0 {
			// A run ended as of an earlier moment ends a window opened
			// after it where it opened.
			tw.EndSeq, tw.EndedAt = max(rec.EndSeq, tw.StartSeq), rec.EndedAt
			if tw.EndedAt.IsZero() {
				tw.EndedAt = time.Now().UTC()
			}
			if err := tx.PutToolWindow(tw); err != nil {
				return err
			}
		}
	}
	tx.SetActive(withoutRun(a, rec.Session, rec.Run))
	return nil
}

// openWindow cuts a tool call's pre_write, opens the call and records its
// window.
func openWindow(tx *snapshot.Tx, req api.ToolRequest) (store.Checkpoint, error) {
	cp, err := tx.Cut(snapshot.ReasonPreWrite, req.Command, store.Attr{Session: req.Session, Run: req.Run, Call: req.Call})
	if err != nil {
		return cp, err
	}
	tx.SetActive(withCall(tx.Active(), req))
	return cp, tx.PutToolWindow(store.ToolWindow{
		Session: req.Session, Run: req.Run, Call: req.Call, Command: req.Command,
		CheckpointID: cp.ID, StartSeq: cp.Seq, StartedAt: time.Now().UTC(),
	})
}

// resumeWindow answers a tool start for a window already recorded, and
// opens the call if it is open but a crash left it out of the open set.
func resumeWindow(tx *snapshot.Tx, tw store.ToolWindow, req api.ToolRequest) (store.Checkpoint, error) {
	if tw.EndSeq == 0 && !slices.Contains(openCalls(tx.Active(), req.Session, req.Run), req.Call) {
		tx.SetActive(withCall(tx.Active(), req))
	}
	return tx.Checkpoint(tw.CheckpointID)
}

// closeWindow ends a window at the head: every entry after it is no
// longer the call's. An ended window is only taken out of the open set,
// should a crash have left it there.
func closeWindow(tx *snapshot.Tx, tw store.ToolWindow, req api.ToolRequest) (store.ToolWindow, error) {
	tx.SetActive(withoutCall(tx.Active(), req))
	if tw.EndSeq != 0 {
		return tw, nil
	}
	tw.EndSeq, tw.EndedAt = tx.Head(), time.Now().UTC()
	return tw, tx.PutToolWindow(tw)
}

// isOpen: a run start opened the run (session, run) and no run end has
// closed it; tool windows alone do not make a run open.
func isOpen(a store.Active, session, run string) bool {
	return slices.ContainsFunc(a.Runs, func(r store.ActiveRun) bool {
		return r.Session == session && r.Run == run && !r.WindowsOnly
	})
}

func openCalls(a store.Active, session, run string) []string {
	for _, r := range a.Runs {
		if r.Session == session && r.Run == run {
			return r.Calls
		}
	}
	return nil
}
