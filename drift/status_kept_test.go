package drift

import (
	"context"
	"reflect"
	"testing"
)

// TestStatusCostDoesNotGrowWithTheJournal: a status with 10 files changed
// allocates about as much after 10,000 journal entries since the current
// checkpoint (a manual checkpoint does not move it) as right after it. A
// status that decodes every entry since the checkpoint allocates for each
// and fails this; one that reads the entries since the last status does
// not. No time is measured.
func TestStatusCostDoesNotGrowWithTheJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 10,000 journal entries")
	}
	fresh, changeFresh := daemonLike(t, 250)
	aged, changeAged := daemonLike(t, 250)
	for round := range 1000 {
		changeAged(100 + round)
		if err := aged.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := aged.Checkpoint(context.Background(), "manual"); err != nil {
		t.Fatal(err)
	}
	a, b := statusAllocs(t, fresh, changeFresh), statusAllocs(t, aged, changeAged)
	t.Logf("allocations per status, 10 changed: %d after the checkpoint, %d with 10,000 entries since", a, b)
	if b > a*3/2+500 {
		t.Fatalf("a status allocates %d times with 10,000 journal entries since the checkpoint against %d without: it does work for every entry", b, a)
	}
}

// TestKeptStatusUnderConcurrentCaptures: statuses asked at once from
// several goroutines while captures commit (as the daemon's requests and
// its watcher do) end with the answer an engine that kept nothing gives.
func TestKeptStatusUnderConcurrentCaptures(t *testing.T) {
	e, change := daemonLike(t, 250)
	noSync := Options{Sync: func(context.Context) error { return nil }}
	kept := New(e.Workspace(), noSync)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := kept.Status(context.Background()); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for round := range 30 {
		change(round)
		if err := e.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := kept.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, err := New(e.Workspace(), noSync).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Changes, want.Changes) || len(got.Changes) != 10 {
		t.Fatalf("kept status lists %v, read whole %v", got.Changes, want.Changes)
	}
}
