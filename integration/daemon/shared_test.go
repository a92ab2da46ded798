package daemon

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// TestEventsShared: a change captured while another session's run is open
// next to a tool window names the newest in its ids and the other in
// shared_with.
func TestEventsShared(t *testing.T) {
	ts, root := serveOne(t, testTree{"a": "a"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	es, err := ts.client.Events(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	w := ts.client.Workspace(root)
	if _, err := w.RunStart(ctx, "s1", "r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ToolStart(ctx, api.ToolRequest{Session: "s1", Run: "r1", Call: "c1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RunStart(ctx, "s2", "r2"); err != nil {
		t.Fatal(err)
	}
	testTree{"a": "edited"}.write(t, root)
	if _, err := w.Status(ctx); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, es, "the change", func(ev api.Event) bool { return ev.Type == api.EventChange })
	c := ev.Change
	want := []api.Party{{SessionID: "s1", RunID: "r1", ToolCallID: "c1"}}
	if c.Path != "a" || c.By != "run" || c.SessionID != "s2" || c.RunID != "r2" || !reflect.DeepEqual(c.SharedWith, want) {
		t.Fatalf("change event %+v, want a by s2/r2 shared with %+v", c, want)
	}
}
