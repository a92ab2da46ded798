package snapshot

import (
	"reflect"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// TestAttrShared: a change captured while several runs and tool calls are
// open names the newest call of the newest run, and every other open call
// (or run without one) as shared; with one open, none is shared.
func TestAttrShared(t *testing.T) {
	for _, tc := range []struct {
		name   string
		active store.Active
		want   store.Attr
	}{
		{"nobody", store.Active{}, store.Attr{}},
		{"one run", store.Active{Runs: []store.ActiveRun{{Session: "s", Run: "r"}}}, store.Attr{Session: "s", Run: "r"}},
		{"one call", store.Active{Runs: []store.ActiveRun{{Session: "s", Run: "r", Calls: []string{"c"}}}},
			store.Attr{Session: "s", Run: "r", Call: "c"}},
		{"two calls of one run", store.Active{Runs: []store.ActiveRun{{Session: "s", Run: "r", Calls: []string{"c1", "c2"}}}},
			store.Attr{Session: "s", Run: "r", Call: "c2", Shared: []store.Party{{Session: "s", Run: "r", Call: "c1"}}}},
		{"a window, then another session's run", store.Active{Runs: []store.ActiveRun{
			{Session: "s1", Run: "r1", Calls: []string{"c1"}}, {Session: "s2", Run: "r2"}}},
			store.Attr{Session: "s2", Run: "r2", Shared: []store.Party{{Session: "s1", Run: "r1", Call: "c1"}}}},
		{"a run, then another session's window", store.Active{Runs: []store.ActiveRun{
			{Session: "s2", Run: "r2"}, {Session: "s1", Run: "r1", Calls: []string{"c1"}}}},
			store.Attr{Session: "s1", Run: "r1", Call: "c1", Shared: []store.Party{{Session: "s2", Run: "r2"}}}},
	} {
		ws := &Workspace{active: tc.active}
		if got := ws.attr(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: attr() = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
