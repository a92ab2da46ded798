package store

import (
	"testing"
	"time"
)

func TestReviewsPutListClear(t *testing.T) {
	s := openTestStore(t)
	at := time.Now().UTC()
	err := s.Write(func(w *Writer) error {
		for _, rv := range []Review{
			{Session: "s", Run: "r", Path: "a.go", Mark: "accepted", At: at},
			{Session: "s", Run: "r", Path: "b.go", Mark: "rejected", At: at},
			{Session: "s", Run: "r2", Path: "a.go", Mark: "accepted", At: at},
			{Session: "s", Run: "r", Path: "b.go", Mark: "", At: at}, // cleared
		} {
			if err := w.PutReview(rv); err != nil {
				return err
			}
		}
		return w.PutToolWindow(ToolWindow{Session: "s", Run: "r", Call: "c1"})
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []Review
	var calls []string
	err = s.View(func(r *Reader) error {
		if err := r.Reviews("s", "r", func(rv Review) error { got = append(got, rv); return nil }); err != nil {
			return err
		}
		return r.ToolWindows("s", "r", func(tw ToolWindow) error { calls = append(calls, tw.Call); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "a.go" || got[0].Mark != "accepted" {
		t.Fatalf("reviews of s/r = %+v, want only a.go accepted", got)
	}
	if len(calls) != 1 || calls[0] != "c1" {
		t.Fatalf("tool windows of s/r = %v, want [c1]", calls)
	}
}
