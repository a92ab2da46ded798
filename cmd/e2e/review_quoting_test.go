package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReviewPathsAreQuoted: a review mark names its path quoted, as every
// path ckpt prints (CONTRACT "Paths"), wherever it shows: ckpt review
// (text and --json), and with a daemon GET /v1/reviews and the review
// event on /v1/events, so the panel matches a mark to the run's change.
// A file whose name holds a newline can be marked by its quoted name.
func TestReviewPathsAreQuoted(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("plain.txt", "plain\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.write("new\nline.txt", "written by the run\n")
		ws.write("tab\tname.txt", "written by the run\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")

		var events <-chan string
		if m == daemon {
			var stop func()
			events, stop = subscribeEvents(t, filepath.Join(ws.state, "ckptd.sock"), ws.root)
			defer stop()
		}
		const newline, tab = `"new\nline.txt"`, `"tab\tname.txt"`
		for _, p := range []string{newline, tab} {
			ws.ckptOK("review", "--session", "s", "--run", "r1", "--accept", p)
		}
		var res struct {
			Reviews []struct{ Path, Mark string } `json:"reviews"`
		}
		ws.ckptJSON(&res, "review", "--session", "s", "--run", "r1")
		got := map[string]string{}
		for _, r := range res.Reviews {
			got[r.Path] = r.Mark
		}
		if got[newline] != "accepted" || got[tab] != "accepted" || len(got) != 2 {
			t.Errorf("ckpt review --json: %+v, want %s and %s accepted, quoted", res.Reviews, newline, tab)
		}
		text := ws.ckptOK("review", "--session", "s", "--run", "r1")
		if !strings.Contains(text, "accepted: "+newline+"\n") || strings.Contains(text, "new\nline") {
			t.Errorf("ckpt review (text) does not print the path quoted:\n%s", text)
		}
		if m != daemon {
			return
		}
		body := socketGet(t, filepath.Join(ws.state, "ckptd.sock"), "/v1/reviews?"+url.Values{"workspace": {ws.root}, "session": {"s"}, "run": {"r1"}}.Encode())
		if !strings.Contains(body, `"path":"\"new\\nline.txt\""`) {
			t.Errorf("GET /v1/reviews does not quote the path: %s", body)
		}
		deadline := time.After(10 * time.Second)
		for seen := 0; seen < 2; {
			select {
			case line := <-events:
				if !strings.Contains(line, `"type":"review"`) {
					continue
				}
				seen++
				if !strings.Contains(line, `"path":"\"new\\nline.txt\""`) && !strings.Contains(line, `"path":"\"tab\\tname.txt\""`) {
					t.Errorf("a review event does not quote its path as GET /v1/reviews does: %s", line)
				}
			case <-deadline:
				t.Fatalf("no review events within 10s")
			}
		}
	})
}

// socketGet answers GET path on the daemon's socket; it fails the test
// unless the answer is 200.
func socketGet(t *testing.T, sock, path string) string {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}, Timeout: 30 * time.Second}
	resp, err := hc.Get("http://ckptd" + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, b)
	}
	if !json.Valid(b) {
		t.Fatalf("GET %s: not JSON: %s", path, b)
	}
	return string(b)
}
