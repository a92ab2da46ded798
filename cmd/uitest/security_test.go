package uitest

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptdev/ckpt/integration/panel"
)

func TestListensOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "localhost:0"} {
		if ln, err := panel.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) listened on %s; want refused", addr, ln.Addr())
		}
	}
	d := startDaemon(t, map[string]string{"a.txt": "1\n"})
	host, _, _ := net.SplitHostPort(strings.TrimPrefix(d.base, "http://"))
	if host != "127.0.0.1" {
		t.Fatalf("panel listens on %s, want 127.0.0.1", host)
	}
	// The daemon refuses a non-loopback ui_addr as bad input.
	out, err := exec.Command(bins.Ckptd, "watch", "--state-dir", t.TempDir(), "--ui-addr", "0.0.0.0:0", d.ws).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "loopback") {
		t.Fatalf("ckptd --ui-addr 0.0.0.0:0: %v\n%s; want exit 2 naming loopback", err, out)
	}
}

func TestTokenIsNeededAndBecomesAStrictHttpOnlyCookie(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "1\n"})
	noCookie := func(r *http.Request) { r.Header.Del("Cookie") }
	for _, path := range []string{"/", "/api/workspaces", "/api/status?" + d.q(), "/assets/app.js", "/?token=wrong"} {
		resp, body := d.request("GET", path, nil, noCookie)
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, d.ws) {
			t.Errorf("GET %s without cookie: %d %s; want 401", path, resp.StatusCode, body)
		}
	}
	wrong := func(r *http.Request) {
		r.Header.Del("Cookie")
		r.AddCookie(&http.Cookie{Name: "ckpt_panel", Value: strings.Repeat("0", 64)})
	}
	if resp, _ := d.request("GET", "/api/workspaces", nil, wrong); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong cookie: %d, want 401", resp.StatusCode)
	}
	resp, _ := d.request("GET", "/?token="+d.token, nil, noCookie)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("GET /?token=: %d Location %q; want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	sc := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"ckpt_panel=" + d.token, "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %s", sc, want)
		}
	}
	if resp, body := d.request("GET", "/api/workspaces", nil, nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, d.ws) {
		t.Fatalf("with the cookie: %d %s", resp.StatusCode, body)
	}
}

func TestHostMustBeLoopbackWithThePort(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "1\n"})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.base, "http://"))
	for _, host := range []string{"evil.example:" + port, "attacker.test", "127.0.0.1", "127.0.0.1:1", "localhost.evil.example:" + port, "10.0.0.1:" + port} {
		resp, _ := d.request("GET", "/api/workspaces", nil, func(r *http.Request) { r.Host = host })
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: %d, want 421", host, resp.StatusCode)
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port} {
		resp, _ := d.request("GET", "/api/workspaces", nil, func(r *http.Request) { r.Host = host })
		if resp.StatusCode != http.StatusOK {
			t.Errorf("Host %q: %d, want 200", host, resp.StatusCode)
		}
	}
}

func TestStateChangesNeedPostSameOriginAndTokenHeader(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "1\n"})
	var cp struct {
		ID string `json:"checkpoint_id"`
	}
	d.ckptJSON(&cp, "checkpoint", "-m", "before")
	d.write("a.txt", "changed\n")
	d.ckpt("status")
	body := map[string]any{"ws": d.ws, "checkpoint_id": cp.ID, "exact": true}
	cases := []struct {
		name string
		set  func(*http.Request)
		code int
	}{
		{"no Origin", func(r *http.Request) { r.Header.Del("Origin") }, http.StatusForbidden},
		{"other origin", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, http.StatusForbidden},
		{"other port", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") }, http.StatusForbidden},
		{"null origin", func(r *http.Request) { r.Header.Set("Origin", "null") }, http.StatusForbidden},
		{"https origin", func(r *http.Request) { r.Header.Set("Origin", strings.Replace(d.base, "http:", "https:", 1)) }, http.StatusForbidden},
		{"no token header", func(r *http.Request) { r.Header.Del("X-Ckpt-Token") }, http.StatusForbidden},
		{"wrong token header", func(r *http.Request) { r.Header.Set("X-Ckpt-Token", "x") }, http.StatusForbidden},
		{"no cookie", func(r *http.Request) { r.Header.Del("Cookie") }, http.StatusUnauthorized},
		{"token in the URL", func(r *http.Request) { r.Header.Del("Cookie"); r.URL.RawQuery = "token=" + d.token }, http.StatusUnauthorized},
	}
	for _, c := range cases {
		resp, out := d.request("POST", "/api/restore", body, c.set)
		if resp.StatusCode != c.code {
			t.Errorf("%s: %d %s; want %d", c.name, resp.StatusCode, out, c.code)
		}
	}
	for _, m := range []string{"PUT", "DELETE", "PATCH", "OPTIONS"} {
		resp, _ := d.request(m, "/api/restore", body, func(r *http.Request) {
			r.Header.Set("Access-Control-Request-Method", "POST")
		})
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, resp.StatusCode)
		}
	}
	if resp, _ := d.request("GET", "/api/restore?"+d.q("checkpoint_id", cp.ID), nil, nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/restore: %d, want 405", resp.StatusCode)
	}
	if got := d.read("a.txt"); got != "changed\n" {
		t.Fatalf("a refused request changed a.txt: %q", got)
	}
	// The same request, well formed, restores.
	if resp, out := d.request("POST", "/api/restore", body, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("a same-origin POST with the token: %d %s", resp.StatusCode, out)
	}
	if got := d.read("a.txt"); got != "1\n" {
		t.Fatalf("after the restore a.txt = %q", got)
	}
}

func TestNoCORSHeaders(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "1\n"})
	set := func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/workspaces"}, {"GET", "/"}, {"OPTIONS", "/api/restore"}, {"POST", "/api/undo"}, {"GET", "/api/status?" + d.q()},
	} {
		resp, _ := d.request(c.method, c.path, map[string]any{"ws": d.ws}, set)
		for k := range resp.Header {
			if strings.HasPrefix(strings.ToLower(k), "access-control-") {
				t.Errorf("%s %s answered with %s", c.method, c.path, k)
			}
		}
	}
}

// No page or API request reads or writes outside the workspace: every
// path parameter is checked, and symlinks are not followed out.
func TestNothingOutsideTheWorkspace(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "1\n"})
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, d.path("out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, d.path("secret-link")); err != nil {
		t.Fatal(err)
	}
	var cp struct {
		ID string `json:"checkpoint_id"`
	}
	d.ckptJSON(&cp, "checkpoint", "-m", "with links")
	rel, _ := filepath.Rel(d.ws, secret)
	bad := []string{"../x", rel, secret, "/etc/passwd", "out/secret.txt", "out/../../x", "a.txt/../../x", "..", "%2e%2e/x", "a\x00b"}
	// Names inside the workspace (a file may be called "%2e%2e"; "out" is
	// a symlink, not followed): they may be answered, with nothing from
	// outside in the answer.
	byName := map[string]bool{"out/secret.txt": true, "%2e%2e/x": true}
	for _, p := range bad {
		for _, path := range []string{
			"/api/history?" + d.q("path", p),
			"/api/version-diff?" + d.q("path", p, "from", "@1"),
			"/api/run/patch?" + d.q("session", "s", "run", "r", "path", p),
		} {
			resp, body := d.request("GET", path, nil, nil)
			if (resp.StatusCode < 400 && !byName[p]) || strings.Contains(body, "TOPSECRET") {
				t.Errorf("GET %s: %d %s; want refused", path, resp.StatusCode, body)
			}
		}
		for _, route := range []string{"/api/restore", "/api/review"} {
			body := map[string]any{"ws": d.ws, "checkpoint_id": cp.ID, "paths": []string{p}, "exact": true, "session_id": "s", "run_id": "r", "path": p, "mark": "accepted"}
			resp, out := d.request("POST", route, body, nil)
			if byName[p] && resp.StatusCode < 500 && !strings.Contains(out, "TOPSECRET") {
				continue // checked below: nothing outside changed
			}
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("POST %s path %q: %d %s; want 400", route, p, resp.StatusCode, out)
			}
		}
	}
	// The symlink's history is the link, never the file it points to.
	resp, body := d.request("GET", "/api/history?"+d.q("path", "secret-link"), nil, nil)
	if resp.StatusCode != http.StatusOK || strings.Contains(body, "TOPSECRET") {
		t.Errorf("history of a symlink: %d %s", resp.StatusCode, body)
	}
	resp, body = d.request("GET", "/api/drift?"+d.q(), nil, nil)
	if strings.Contains(body, "TOPSECRET") {
		t.Errorf("drift shows the content behind a symlink: %s", body)
	}
	// Workspaces are the served ones, named exactly.
	for _, ws := range []string{outside, "/", d.ws + "/..", d.ws + "/out", "relative"} {
		resp, _ := d.request("GET", "/api/status?"+url.Values{"ws": {ws}}.Encode(), nil, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("status of workspace %q: %d, want 404", ws, resp.StatusCode)
		}
		resp, _ = d.request("POST", "/api/restore", map[string]any{"ws": ws, "checkpoint_id": cp.ID, "exact": true}, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("restore in workspace %q: %d, want 404", ws, resp.StatusCode)
		}
	}
	// The page's files are the embedded ones only.
	for _, p := range []string{"/assets/../../../../etc/passwd", "/assets/..%2f..%2f..%2fetc%2fpasswd", "/assets/%2e%2e/%2e%2e/etc/passwd", "/../etc/passwd", "/assets//etc/passwd", "/assets/" + secret} {
		resp, body := d.request("GET", p, nil, nil)
		if resp.StatusCode == http.StatusOK || strings.Contains(body, "root:") || strings.Contains(body, "TOPSECRET") {
			t.Errorf("GET %s: %d %.80s", p, resp.StatusCode, body)
		}
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "TOPSECRET\n" {
		t.Fatalf("the file outside changed: %q %v", b, err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("something was written outside the workspace: %v", entries)
	}
}
