package panel

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// noWorkspaces serves none: the guard answers before any route runs.
type noWorkspaces struct{}

func (noWorkspaces) Roots() []string                    { return []string{} }
func (noWorkspaces) Workspace(string) (Workspace, bool) { return nil, false }

func TestGuardRefuses(t *testing.T) {
	p, err := New(noWorkspaces{}, Options{Assets: fstest.MapFS{"index.html": {Data: []byte("<meta content=\"{{CKPT_TOKEN}}\">")}}})
	if err != nil {
		t.Fatal(err)
	}
	p.SetPort("4242")
	h := p.Handler()
	do := func(method, target string, set func(*http.Request)) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, strings.NewReader(`{"ws":"/x"}`))
		r.Host = "127.0.0.1:4242"
		r.AddCookie(&http.Cookie{Name: cookieName, Value: p.Token()})
		if method == http.MethodPost {
			r.Header.Set("Origin", "http://127.0.0.1:4242")
			r.Header.Set(tokenHeader, p.Token())
		}
		if set != nil {
			set(r)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	cases := []struct {
		name         string
		method, path string
		set          func(*http.Request)
		want         int
	}{
		{"ok", "GET", "/api/workspaces", nil, 200},
		{"page carries the token", "GET", "/", nil, 200},
		{"rebound host", "GET", "/api/workspaces", func(r *http.Request) { r.Host = "evil.example:4242" }, 421},
		{"other port", "GET", "/api/workspaces", func(r *http.Request) { r.Host = "127.0.0.1:1" }, 421},
		{"no cookie", "GET", "/api/workspaces", func(r *http.Request) { r.Header.Del("Cookie") }, 401},
		{"cross origin", "POST", "/api/undo", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, 403},
		{"no origin", "POST", "/api/undo", func(r *http.Request) { r.Header.Del("Origin") }, 403},
		{"no token header", "POST", "/api/undo", func(r *http.Request) { r.Header.Del(tokenHeader) }, 403},
		{"same origin with token: unknown workspace", "POST", "/api/undo", nil, 404},
		{"preflight", "OPTIONS", "/api/undo", nil, 405},
	}
	for _, c := range cases {
		w := do(c.method, c.path, c.set)
		if w.Code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, w.Code, w.Body, c.want)
		}
		for k := range w.Header() {
			if strings.HasPrefix(strings.ToLower(k), "access-control-") {
				t.Errorf("%s: CORS header %s", c.name, k)
			}
		}
	}
	if body := do("GET", "/", nil).Body.String(); !strings.Contains(body, p.Token()) {
		t.Errorf("the page lacks the token: %s", body)
	}
}
