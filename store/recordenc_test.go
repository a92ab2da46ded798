package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestRecordsBinary: checkpoints and runs are stored in the binary
// encoding, far smaller than their JSON, and read back equal, whether
// written now or as JSON by earlier versions, through every reader
// (Checkpoint, Checkpoints, Run, Runs, LastRun).
func TestRecordsBinary(t *testing.T) {
	s := openTestStore(t)
	at := time.Date(2026, 12, 1, 18, 59, 9, 123456789, time.UTC)
	cp := Checkpoint{ID: "ck12-0123abcd", Seq: 456, Reason: "checkpoint", CreatedAt: at, Session: "s1", Run: "r12",
		Call: "toolu_1", Message: "mid-turn", Fingerprint: 0xfedcba9876543210, Files: 167, Unreadable: []string{"a", "b/c"}}
	run := Run{Session: "s1", Run: "r12", BaselineID: "ck11-aa", Drifted: true, Drift: []string{"x"}, EndID: "ck13-bb",
		StartedAt: at, EndedAt: at.Add(time.Minute), UpdatedAt: at.Add(time.Minute), StartSeq: 4, EndSeq: 9, OpenSeq: 5, Warning: "w"}
	oldCp, oldRun := cp, run
	oldCp.ID, oldCp.Seq, oldCp.Ord = "ck1-old", 3, 1
	oldRun.Run = "r-old"
	oldRun.StartedAt = at.Add(-time.Hour)
	confMustWrite(t, s, func(w *Writer) error {
		// As earlier versions wrote them: JSON.
		for k, v := range map[string]any{string(checkpointKey(oldCp.ID)): oldCp, string(runKey(oldRun.Session, oldRun.Run)): oldRun} {
			b, _ := json.Marshal(v)
			if err := w.set([]byte(k), b); err != nil {
				return err
			}
		}
		if err := w.set(ckptBySeqKey(oldCp.Seq, oldCp.Ord), []byte(oldCp.ID)); err != nil {
			return err
		}
		if err := w.PutCheckpoint(&cp); err != nil {
			return err
		}
		return w.PutRun(run)
	})
	confMustView(t, s, func(r *Reader) error {
		for key, jsonOf := range map[string]any{string(checkpointKey(cp.ID)): cp, string(runKey(run.Session, run.Run)): run} {
			item, err := r.txn.Get([]byte(key))
			if err != nil {
				return err
			}
			j, _ := json.Marshal(jsonOf)
			if item.ValueSize()*2 > int64(len(j)) || item.ValueSize() == 0 {
				t.Errorf("%q stored in %d bytes, want under half of its %d as JSON", key, item.ValueSize(), len(j))
			}
		}
		for _, want := range []Checkpoint{cp, oldCp} {
			got, err := r.Checkpoint(want.ID)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Checkpoint(%s) = %+v, %v; want %+v", want.ID, got, err, want)
			}
		}
		var ids []string
		if err := r.Checkpoints(func(c Checkpoint) (bool, error) { ids = append(ids, c.ID); return true, nil }); err != nil {
			return err
		}
		if !reflect.DeepEqual(ids, []string{cp.ID, oldCp.ID}) {
			t.Errorf("Checkpoints: %v", ids)
		}
		for _, want := range []Run{run, oldRun} {
			got, err := r.Run(want.Session, want.Run)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Run(%s) = %+v, %v; want %+v", want.Run, got, err, want)
			}
		}
		var runs []Run
		if err := r.Runs(func(rn Run) error { runs = append(runs, rn); return nil }); err != nil {
			return err
		}
		if len(runs) != 2 {
			t.Errorf("Runs: %d, want 2", len(runs))
		}
		last, err := r.LastRun()
		if err != nil || last.Run != run.Run {
			t.Errorf("LastRun = %s, %v; want %s", last.Run, err, run.Run)
		}
		return nil
	})
}

// TestRecordBinaryTruncated: a truncated binary record is an error, never a
// panic.
func TestRecordBinaryTruncated(t *testing.T) {
	cp := Checkpoint{ID: "ck1-a", Message: "m", Unreadable: []string{"x"}, CreatedAt: time.Now().UTC()}
	b, _ := marshalRecord(&cp)
	for n := 1; n < len(b); n++ {
		var got Checkpoint
		if err := unmarshalRecord(b[:n], &got); err == nil {
			t.Fatalf("a record cut at %d of %d bytes decoded without error", n, len(b))
		}
	}
}
