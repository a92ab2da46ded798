package store

import (
	"testing"
	"time"
)

// TestOldRecordsDecode: a workspace state and a run written by earlier
// versions, with fields since dropped (fingerprint_payload,
// active_call_id, active_call_from), still read as they were.
func TestOldRecordsDecode(t *testing.T) {
	s, err := Open(t.TempDir(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	oldState := `{"workspace_key":"k","root":"/w","current_checkpoint_id":"ck3-abcdef","fingerprint_payload":"00000000000000ff:3","updated_at":"2026-11-01T10:00:00Z","settled_seq":7}`
	oldRun := `{"session_id":"s","run_id":"r","baseline_checkpoint_id":"ck2-aaaaaa","drifted":true,"drift":["a"],"started_at":"2026-11-01T09:00:00Z","updated_at":"2026-11-01T09:00:00Z","start_seq":4,"active_call_id":"c1","active_call_from":"2026-11-01T09:30:00Z"}`
	err = s.Write(func(w *Writer) error {
		if err := w.set(metaKey(metaWorkspace), []byte(oldState)); err != nil {
			return err
		}
		return w.set(runKey("s", "r"), []byte(oldRun))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(func(r *Reader) error {
		ws, err := r.Workspace()
		if err != nil {
			return err
		}
		if ws.CurrentCheckpointID != "ck3-abcdef" || ws.Root != "/w" || ws.SettledSeq != 7 {
			t.Errorf("old workspace state read as %+v", ws)
		}
		rn, err := r.Run("s", "r")
		if err != nil {
			return err
		}
		if rn.BaselineID != "ck2-aaaaaa" || !rn.Drifted || len(rn.Drift) != 1 || rn.StartSeq != 4 {
			t.Errorf("old run read as %+v", rn)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
