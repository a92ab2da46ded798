package panel

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/ckptdev/ckpt/integration/web"
)

// TestAssetsAreVersioned: the page names its assets under this build's
// version, served to be kept forever; an unversioned or stale URL gets
// the file, to be asked for again; a path out of the assets is not found.
func TestAssetsAreVersioned(t *testing.T) {
	p, err := New(noWorkspaces{}, Options{Assets: web.Assets})
	if err != nil {
		t.Fatal(err)
	}
	p.SetPort("4242")
	h := p.Handler()
	get := func(target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Host = "127.0.0.1:4242"
		r.AddCookie(&http.Cookie{Name: cookieName, Value: p.Token()})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	page := get("/").Body.String()
	refs := regexp.MustCompile(`"/assets/([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 3 {
		t.Fatalf("the page names %d assets:\n%s", len(refs), page)
	}
	for _, ref := range refs {
		if want := "v" + p.version + "/"; len(ref[1]) <= len(want) || ref[1][:len(want)] != want {
			t.Errorf("the page names /assets/%s, want it under %s", ref[1], want)
			continue
		}
		w := get("/assets/" + ref[1])
		if w.Code != 200 || w.Header().Get("Cache-Control") != "private, max-age=31536000, immutable" {
			t.Errorf("/assets/%s: %d, Cache-Control %q", ref[1], w.Code, w.Header().Get("Cache-Control"))
		}
	}
	for _, stale := range []string{"/assets/app.js", "/assets/v0123456789abcdef/app.js"} {
		w := get(stale)
		if w.Code != 200 || w.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d, Cache-Control %q, want 200 and no-cache", stale, w.Code, w.Header().Get("Cache-Control"))
		}
	}
	for _, bad := range []string{"/assets/v" + p.version + "/../index.html", "/assets/v" + p.version + "/nothere.js", "/assets/v" + p.version + "/"} {
		if w := get(bad); w.Code == 200 {
			t.Errorf("%s: 200, want it refused", bad)
		}
	}
	if len(p.version) != 16 {
		t.Errorf("version %q, want 16 hex digits", p.version)
	}
}
