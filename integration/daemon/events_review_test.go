package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// A review mark set or cleared through the socket (as ckpt review and the
// panel do) is an event on the workspace's stream, once it is stored.
func TestEventsReviewMark(t *testing.T) {
	ts, root := serveOne(t, testTree{"a.txt": "one"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w := ts.client.Workspace(root)
	if _, err := w.RunStart(ctx, "s", "r"); err != nil {
		t.Fatal(err)
	}
	testTree{"a.txt": "two"}.write(t, root)
	if _, err := w.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.RunEnd(ctx, "s", "r"); err != nil {
		t.Fatal(err)
	}
	es, err := ts.client.Events(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	for _, mark := range []string{api.MarkAccepted, ""} {
		if _, err := w.Review(ctx, api.ReviewRequest{Session: "s", Run: "r", Path: "a.txt", Mark: mark}); err != nil {
			t.Fatal(err)
		}
		ev := nextEvent(t, es, "the review mark "+mark, func(ev api.Event) bool { return ev.Type == api.EventReview })
		rv := ev.Review
		if rv == nil || rv.SessionID != "s" || rv.RunID != "r" || rv.Path != "a.txt" || rv.Mark != mark || rv.At.IsZero() || ev.Workspace != root {
			t.Fatalf("review event %+v (%+v)", ev, rv)
		}
		got, err := w.Reviews(ctx, "s", "r")
		if err != nil {
			t.Fatal(err)
		}
		if stored := len(got.Reviews) == 1 && got.Reviews[0].Mark == mark; mark != "" && !stored {
			t.Fatalf("the event came before the mark was stored: %+v", got)
		}
	}
	// A refused mark is no event: the next event is the mark after it.
	if _, err := w.Review(ctx, api.ReviewRequest{Session: "s", Run: "r", Path: "nope.txt", Mark: api.MarkRejected}); err == nil {
		t.Fatal("a mark on a file the run did not change was accepted")
	}
	if _, err := w.Review(ctx, api.ReviewRequest{Session: "s", Run: "r", Path: "a.txt", Mark: api.MarkRejected}); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, es, "the reject", func(ev api.Event) bool { return ev.Type == api.EventReview })
	if ev.Review.Path != "a.txt" || ev.Review.Mark != api.MarkRejected {
		t.Fatalf("after a refused mark the next review event is %+v", ev.Review)
	}
}
