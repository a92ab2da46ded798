package store

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestLastRunCacheMatchesScan puts runs in an order that exercises every
// case of the cache (first run, a newer one, an older one, a tie, the
// newest rewritten later and earlier, runs put in one commit and across
// several) and checks Store.LastRun against the scan after each commit.
func TestLastRunCacheMatchesScan(t *testing.T) {
	s := openTestStore(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	check := func(step string) {
		t.Helper()
		var want Run
		var wantErr error
		if err := s.View(func(r *Reader) error { want, wantErr = r.LastRun(); return nil }); err != nil {
			t.Fatal(err)
		}
		got, err := s.LastRun()
		if !errors.Is(err, wantErr) && !(err == nil && wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: LastRun = %+v, %v; the scan finds %+v, %v", step, got, err, want, wantErr)
		}
	}
	put := func(step string, runs ...Run) {
		t.Helper()
		if err := s.Write(func(w *Writer) error {
			for _, r := range runs {
				if err := w.PutRun(r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		check(step)
	}
	run := func(session, id string, started time.Duration) Run {
		return Run{Session: session, Run: id, BaselineID: "ck1", StartedAt: at.Add(started), Drift: []string{"a", id}}
	}
	check("empty")
	put("first", run("s", "r5", 0))
	put("newer", run("s", "r6", time.Minute))
	put("older", run("s", "r1", -time.Minute))
	put("tie, larger key", run("t", "r0", time.Minute))
	put("tie, smaller key", run("a", "r9", time.Minute))
	ended := run("a", "r9", time.Minute)
	ended.EndID = "ck9"
	put("newest rewritten", ended)
	put("newest moved back", run("a", "r9", -time.Hour))
	put("several in one commit", run("s", "r7", time.Hour), run("s", "r8", 2*time.Hour), run("s", "r7", 3*time.Hour))
	// A run put in a commit that fails is not taken.
	failed := errors.New("fail")
	if err := s.Write(func(w *Writer) error {
		if err := w.PutRun(run("z", "late", 10*time.Hour)); err != nil {
			return err
		}
		return failed
	}); !errors.Is(err, failed) {
		t.Fatal(err)
	}
	check("after a failed write")
}

// TestLastRunReadsOnce: however many runs a workspace had, LastRun scans
// their records once per process, not at every status.
func TestLastRunReadsOnce(t *testing.T) {
	s := openTestStore(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.Write(func(w *Writer) error {
		for i := range 200 {
			if err := w.PutRun(Run{Session: "s", Run: fmt.Sprintf("r%03d", i), StartedAt: at.Add(time.Duration(i) * time.Second)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if i == 25 {
			if err := s.Write(func(w *Writer) error { return w.PutRun(Run{Session: "s", Run: "new", StartedAt: at.Add(time.Hour)}) }); err != nil {
				t.Fatal(err)
			}
		}
		rn, err := s.LastRun()
		want := "r199"
		if i >= 25 {
			want = "new"
		}
		if err != nil || rn.Run != want {
			t.Fatalf("call %d: LastRun = %q, %v; want %q", i, rn.Run, err, want)
		}
	}
	if n := s.lastRun.scans.Load(); n != 1 {
		t.Fatalf("50 calls scanned the run records %d times, want once", n)
	}
}
