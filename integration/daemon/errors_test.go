package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// TestErrorAnswers checks each status an error maps to, the JSON error
// body, and the version header, on the raw answers.
func TestErrorAnswers(t *testing.T) {
	ts, root := serveOne(t, testTree{"a": "a"})
	broken := newRoot(t, testTree{"b": "b"})
	eng := openEngine(t, t.TempDir(), broken)
	failing := drift.New(eng.Workspace(), drift.Options{Sync: func(context.Context) error { return errors.New("the disk is on fire") }})
	if err := ts.Add(broken, Served{Engine: failing}); err != nil {
		t.Fatal(err)
	}
	ws := "workspace=" + url.QueryEscape(root)
	tests := []struct {
		name           string
		method, target string
		body           string
		code           int
		msg            string
	}{
		{"health answers", "GET", "/v1/health", "", 200, ""},
		{"status answers", "GET", "/v1/status?" + ws, "", 200, ""},
		{"an unknown checkpoint is bad input", "GET", "/v1/show?id=nope&" + ws, "", 400, "nope"},
		{"a malformed checkpoint is bad input", "POST", "/v1/restore?" + ws, `{"checkpoint_id":"../x"}`, 400, "not a checkpoint id"},
		{"a malformed body is bad input", "POST", "/v1/diff?" + ws, "{", 400, "malformed request body"},
		{"a bad count is bad input", "GET", "/v1/log?n=x&" + ws, "", 400, "not a count"},
		{"a path outside the workspace is bad input", "POST", "/v1/diff?" + ws, `{"paths":["../x"]}`, 400, "outside the workspace"},
		{"a missing workspace is bad input", "GET", "/v1/status", "", 400, "workspace is required"},
		{"a relative workspace is bad input", "GET", "/v1/status?workspace=rel", "", 400, "not an absolute path"},
		{"an unknown workspace is 404", "GET", "/v1/status?workspace=/no/such", "", 404, "does not serve"},
		{"an unknown route is 404", "GET", "/v1/nope", "", 404, "no route"},
		{"a wrong method is 405", "POST", "/v1/status?" + ws, "", 405, "use GET"},
		{"an engine failure is 500", "GET", "/v1/status?workspace=" + url.QueryEscape(broken), "", 500, "the disk is on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawCall(t, ts.socket, tt.method, tt.target, tt.body)
			if resp.StatusCode != tt.code {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.code, body)
			}
			if v := resp.Header.Get(api.VersionHeader); v != api.Version {
				t.Errorf("%s header %q, want %q", api.VersionHeader, v, api.Version)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tt.code == 200 {
				return
			}
			var eb api.ErrorBody
			if err := json.Unmarshal([]byte(body), &eb); err != nil || !strings.Contains(eb.Error, tt.msg) {
				t.Fatalf("body %s: want {\"error\": ...%s...} (%v)", body, tt.msg, err)
			}
		})
	}
}

// TestClientErrors checks that the client turns a 400 into drift.ErrInvalid
// (the CLI exits 2) and anything else into a plain error with the message.
func TestClientErrors(t *testing.T) {
	ts, root := serveOne(t, testTree{"a": "a"})
	ctx := context.Background()
	_, err := ts.client.Workspace(root).Show(ctx, "nope")
	if !errors.Is(err, drift.ErrInvalid) || !strings.Contains(err.Error(), `no checkpoint "nope"`) {
		t.Errorf("show of an unknown checkpoint: %v, want drift.ErrInvalid with the daemon's message", err)
	}
	_, err = ts.client.Workspace("/no/such").Status(ctx)
	if err == nil || errors.Is(err, drift.ErrInvalid) || !strings.Contains(err.Error(), "does not serve") {
		t.Errorf("status of an unknown workspace: %v, want a plain error", err)
	}
	if _, err := client.Dial(ts.socket+".missing", client.Options{}); !errors.Is(err, client.ErrNoDaemon) {
		t.Errorf("Dial of a missing socket: %v, want ErrNoDaemon", err)
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		err  error
		code int
	}{
		{errors.New("x"), http.StatusInternalServerError},
		{drift.Invalid(errors.New("x")), http.StatusBadRequest},
		{httpError{http.StatusNotFound, errors.New("x")}, http.StatusNotFound},
	}
	for _, tt := range tests {
		if got := statusOf(tt.err); got != tt.code {
			t.Errorf("statusOf(%#v) = %d, want %d", tt.err, got, tt.code)
		}
	}
}
