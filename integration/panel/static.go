package panel

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"time"
)

// tokenPlaceholder in index.html is replaced with the token: the page's
// scripts send it in the X-Ckpt-Token header.
const tokenPlaceholder = "{{CKPT_TOKEN}}"

func (p *Panel) serveIndex(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(p.opts.Assets, "index.html")
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the panel's page is missing from this build")
		return
	}
	b = bytes.ReplaceAll(b, []byte(tokenPlaceholder), []byte(p.token))
	if p.version != "" {
		b = bytes.ReplaceAll(b, []byte(`"/assets/`), []byte(`"/assets/v`+p.version+`/`))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// assets serves the page's files from the embedded file system (which
// holds nothing else, and no path leaves it).
func (p *Panel) assets() http.Handler {
	sub, err := fs.Sub(p.opts.Assets, "assets")
	if err != nil {
		return http.NotFoundHandler()
	}
	return http.StripPrefix("/assets/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, current := splitVersion(r.URL.Path, p.version)
		f, err := sub.Open(name)
		if err != nil || !fs.ValidPath(name) {
			writeError(w, http.StatusNotFound, "no such file")
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || st.IsDir() {
			writeError(w, http.StatusNotFound, "no such file")
			return
		}
		rs, ok := f.(io.ReadSeeker)
		if !ok {
			writeError(w, http.StatusInternalServerError, fmt.Sprintf("%s cannot be served", name))
			return
		}
		if current {
			w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
		} else {
			// Unversioned, or another build's version: this build's
			// file, asked again next time.
			w.Header().Set("Cache-Control", "no-cache")
		}
		http.ServeContent(w, r, st.Name(), time.Time{}, rs)
	}))
}

// serveEvents is GET /api/events: the workspace's events as server-sent
// events, until the page goes away or the workspace is no longer served.
func (p *Panel) serveEvents(w http.ResponseWriter, r *http.Request) {
	root := r.URL.Query().Get("ws")
	ws, ok := p.src.Workspace(root)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("ckptd does not serve the workspace %q", root))
		return
	}
	events, err := ws.Subscribe(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, ": ckptd panel events\n\n")
	if rc.Flush() != nil {
		return
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Type, ev.Data)
		case <-keepAlive.C:
			io.WriteString(w, ": keep-alive\n\n")
		case <-r.Context().Done():
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
}
