package drift

import (
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// TestOpeningStamped: a change is a run's (or a call's) for revert when
// the run (call) is among its parties, the stamp or Shared; a restore's
// change is nobody's.
func TestOpeningStamped(t *testing.T) {
	shared := store.Attr{Session: "B", Run: "2", Call: "c2", Shared: []store.Party{{Session: "A", Run: "1", Call: "c1"}, {Session: "C", Run: "3"}}}
	tests := []struct {
		o    opening
		a    store.Attr
		want bool
	}{
		{opening{session: "B", run: "2"}, shared, true},
		{opening{session: "B", run: "2", call: "c2"}, shared, true},
		{opening{session: "A", run: "1"}, shared, true},
		{opening{session: "A", run: "1", call: "c1"}, shared, true},
		{opening{session: "A", run: "1", call: "c9"}, shared, false},
		{opening{session: "C", run: "3"}, shared, true},
		{opening{session: "C", run: "3", call: "c1"}, shared, false},
		{opening{session: "D", run: "4"}, shared, false},
		{opening{session: "A", run: "1"}, store.Attr{Session: "A", Run: "1", Restore: true}, false},
		{opening{session: "A", run: "1"}, store.Attr{}, false},
	}
	for _, tc := range tests {
		if got := tc.o.stamped(store.Change{Attr: tc.a}); got != tc.want {
			t.Errorf("%+v stamped %+v = %v, want %v", tc.o, tc.a, got, tc.want)
		}
	}
}
