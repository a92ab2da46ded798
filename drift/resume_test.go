package drift

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// Earlier versions committed each step of a run or tool start apart, so a
// crash could leave one half done in the store; doing the operation again
// must finish it, not answer from the half that was recorded.

// TestRunStartFinishesAStartCutShort: the rebase checkpoint and the run's
// record were committed, the current checkpoint was not moved to it, and
// the run was not opened.
func TestRunStartFinishesAStartCutShort(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "1"})
	write(t, root, "a", "the person's\n")
	mustOK(t, e.Sync(ctx))
	var before, rebase store.Checkpoint
	err := e.ws.Update(func(tx *snapshot.Tx) (err error) {
		if before, err = tx.Current(); err != nil {
			return err
		}
		if rebase, err = tx.Cut(snapshot.ReasonPreRunDriftRebase, "", store.Attr{Session: "s", Run: "r"}); err != nil {
			return err
		}
		now := time.Now().UTC()
		return tx.PutRun(store.Run{Session: "s", Run: "r", BaselineID: rebase.ID, StartedAt: now, UpdatedAt: now,
			StartSeq: rebase.Seq, OpenSeq: rebase.Seq, Drifted: true, Drift: []string{"a"}})
	})
	mustOK(t, err)
	if cur, _ := e.ws.Current(); cur.ID != before.ID {
		t.Fatalf("fixture: current %s, want the one before the run %s", cur.ID, before.ID)
	}

	res, err := e.RunStart(ctx, "s", "r")
	mustOK(t, err)
	if res.PrevCheckpointID != rebase.ID || !res.WorkspaceDrifted {
		t.Errorf("run start again: %+v, want baseline %s, drifted", res, rebase.ID)
	}
	if cur, _ := e.ws.Current(); cur.ID != rebase.ID {
		t.Errorf("after the run start again the current checkpoint is %s, want its baseline %s", cur.ID, rebase.ID)
	}
	if !isOpen(e.ws.Active(), "s", "r") {
		t.Errorf("after the run start again the run is not open: %+v", e.ws.Active())
	}
	write(t, root, "b", "by the run\n")
	end, err := e.RunEnd(ctx, "s", "r")
	mustOK(t, err)
	if got := paths(end.Files); len(got) != 1 || got["b"] != "added" {
		t.Errorf("run end: files %v, want just b added (the person's a is the baseline's)", got)
	}
}

// TestRunStartKeepsALaterCurrent: a run started long ago does not take the
// current checkpoint back from whatever moved it since.
func TestRunStartKeepsALaterCurrent(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "1"})
	first, err := e.RunStart(ctx, "s", "r")
	mustOK(t, err)
	write(t, root, "a", "2")
	if _, err := e.RunStart(ctx, "s", "other"); err != nil {
		t.Fatal(err)
	}
	later, _ := e.ws.Current()
	if later.ID == first.PrevCheckpointID {
		t.Fatalf("fixture: the second run did not rebase")
	}
	if _, err := e.RunStart(ctx, "s", "r"); err != nil {
		t.Fatal(err)
	}
	if cur, _ := e.ws.Current(); cur.ID != later.ID {
		t.Errorf("run start of an open run moved the current checkpoint from %s to %s", later.ID, cur.ID)
	}
}

// TestToolStartOpensACallLeftClosed: the window was recorded, the call not
// opened; the tool start again opens it, so what follows is the call's.
func TestToolStartOpensACallLeftClosed(t *testing.T) {
	ctx := context.Background()
	e, root := newEngine(t, map[string]string{"a": "1"})
	req := api.ToolRequest{Session: "s", Run: "r", Call: "c"}
	var pre store.Checkpoint
	err := e.ws.Update(func(tx *snapshot.Tx) (err error) {
		if pre, err = tx.Cut(snapshot.ReasonPreWrite, "", store.Attr{Session: "s", Run: "r", Call: "c"}); err != nil {
			return err
		}
		return tx.PutToolWindow(store.ToolWindow{Session: "s", Run: "r", Call: "c", CheckpointID: pre.ID, StartSeq: pre.Seq, StartedAt: time.Now()})
	})
	mustOK(t, err)
	cp, err := e.ToolStart(ctx, req)
	mustOK(t, err)
	if cp.CheckpointID != pre.ID {
		t.Errorf("tool start again: checkpoint %s, want the window's %s", cp.CheckpointID, pre.ID)
	}
	if !slices.Contains(openCalls(e.ws.Active(), "s", "r"), "c") {
		t.Fatalf("after the tool start again the call is not open: %+v", e.ws.Active())
	}
	write(t, root, "a", "by the call\n")
	mustOK(t, e.Sync(ctx))
	h, err := e.History(ctx, api.HistoryRequest{Path: "a"})
	mustOK(t, err)
	if v := h.Versions[0]; v.ToolCallID != "c" {
		t.Errorf("a write after the tool start again is attributed to %+v, want call c", v)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
