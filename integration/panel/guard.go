package panel

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
)

const (
	// cookieName holds the token in the browser.
	cookieName = "ckpt_panel"
	// tokenHeader carries the token on requests that change state.
	tokenHeader = "X-Ckpt-Token"
)

// guard refuses every request that does not come from the person's
// browser on a page the panel served (see the package doc).
func (p *Panel) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		if !p.loopbackHost(r.Host) {
			p.refuse(w, r, http.StatusMisdirectedRequest, "the Host header must be a loopback name with the panel's port")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
			h.Set("Allow", "GET, HEAD, POST")
			p.refuse(w, r, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet {
			p.handOver(w, r, t)
			return
		}
		if !p.hasCookie(r) {
			p.refuse(w, r, http.StatusUnauthorized, "open the panel with the URL that `ckpt ui` prints")
			return
		}
		if r.Method == http.MethodPost {
			if !p.sameOrigin(r) {
				p.refuse(w, r, http.StatusForbidden, "cross-origin request refused")
				return
			}
			if !p.validToken(r.Header.Get(tokenHeader)) {
				p.refuse(w, r, http.StatusForbidden, "missing or wrong "+tokenHeader+" header")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// handOver trades the token in the URL for the cookie, and sends the
// browser to the URL without it (so it is neither kept in the history nor
// shown).
func (p *Panel) handOver(w http.ResponseWriter, r *http.Request, t string) {
	if !p.validToken(t) {
		p.refuse(w, r, http.StatusUnauthorized, "wrong token")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: p.token, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	q := r.URL.Query()
	q.Del("token")
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func (p *Panel) validToken(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(p.token)) == 1
}

func (p *Panel) hasCookie(r *http.Request) bool {
	c, err := r.Cookie(cookieName)
	return err == nil && p.validToken(c.Value)
}

// loopbackHost reports whether host is a loopback name with the panel's
// port: 127.0.0.1, localhost or [::1].
func (p *Panel) loopbackHost(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil || port != p.port {
		return false
	}
	switch strings.ToLower(name) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// sameOrigin reports whether the request's Origin is the panel's own: the
// scheme http and the Host it was sent to.
func (p *Panel) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	return err == nil && u.Scheme == "http" && u.Host == r.Host && u.Path == "" && p.loopbackHost(u.Host)
}

func (p *Panel) refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	p.opts.Log.Warn("panel: refused a request", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "why", msg)
	writeError(w, code, msg)
}
