package drift

import (
	"context"
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
