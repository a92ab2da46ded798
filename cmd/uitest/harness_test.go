package uitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/cmd/internal/testbin"
	"github.com/ckptdev/ckpt/integration/panel"
)

var bins testbin.Binaries

func TestMain(m *testing.M) {
	var err error
	bins, err = testbin.Build()
	if err == nil && bins.CkptdErr != nil {
		err = bins.CkptdErr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "panel tests:", err)
		os.Exit(1)
	}
	code := m.Run()
	closeBrowser()
	os.Exit(code)
}

// daemon is a real ckptd serving one temp workspace, and its panel.
type daemon struct {
	t     testing.TB
	ws    string // the workspace root
	state string
	url   string // the panel's URL with the token
	base  string // http://127.0.0.1:PORT
	token string
	cmd   *exec.Cmd
}

// startDaemon runs `ckptd watch` on a new workspace holding files and
// waits for its panel.
func startDaemon(t testing.TB, files map[string]string) *daemon {
	t.Helper()
	statOnce.Do(statSources)
	tmp := t.TempDir()
	d := &daemon{t: t, ws: filepath.Join(tmp, "ws"), state: filepath.Join(tmp, "state")}
	for _, dir := range []string{d.ws, d.state} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range files {
		d.write(p, c)
	}
	var err error
	if d.ws, err = filepath.EvalSymlinks(d.ws); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(tmp, "ckptd.log"))
	if err != nil {
		t.Fatal(err)
	}
	d.cmd = exec.Command(bins.Ckptd, "watch", "--state-dir", d.state, "--ui-addr", "127.0.0.1:0", d.ws)
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	// A test binary that dies (a timeout's panic) takes its daemons along.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.cmd.Process.Signal(syscall.SIGTERM)
		d.cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("ckptd log:\n%s", b)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := panel.ReadInfo(panel.InfoPath(d.state))
		if err == nil && info.PID == d.cmd.Process.Pid {
			d.url = info.URL
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ckptd wrote no panel address in 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	d.base, d.token = "http://"+u.Host, u.Query().Get("token")
	d.ckpt("log") // the workspace is served, its first import done, once this answers through the daemon
	return d
}

func (d *daemon) path(p string) string { return filepath.Join(d.ws, filepath.FromSlash(p)) }

func (d *daemon) write(p, content string) {
	d.t.Helper()
	abs := d.path(p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		d.t.Fatal(err)
	}
}

func (d *daemon) read(p string) string {
	d.t.Helper()
	b, err := os.ReadFile(d.path(p))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// ckpt runs the real client against the daemon; it fails the test on a
// non-zero exit.
func (d *daemon) ckpt(args ...string) string {
	d.t.Helper()
	out, err := d.ckptErr(args...)
	if err != nil {
		d.t.Fatalf("ckpt %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (d *daemon) ckptErr(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.Ckpt, append([]string{"-C", d.ws, "--state-dir", d.state}, args...)...)
	cmd.Dir = d.ws
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// ckptJSON runs ckpt --json and decodes its object.
func (d *daemon) ckptJSON(v any, args ...string) {
	d.t.Helper()
	out := d.ckpt(append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		d.t.Fatalf("ckpt %v: %v\n%s", args, err, out)
	}
}

// request sends a request to the panel as the browser would, with the
// cookie; set edits it before it is sent.
func (d *daemon) request(method, path string, body any, set func(*http.Request)) (*http.Response, string) {
	d.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.base+path, rd)
	if err != nil {
		d.t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "ckpt_panel", Value: d.token})
	if method == http.MethodPost {
		req.Header.Set("Origin", d.base)
		req.Header.Set("X-Ckpt-Token", d.token)
		req.Header.Set("Content-Type", "application/json")
	}
	if set != nil {
		set(req)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func (d *daemon) q(extra ...string) string {
	v := url.Values{"ws": {d.ws}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return v.Encode()
}

// newJar is a cookie jar for a client that follows the panel's hand-over.
func newJar() http.CookieJar {
	jar, _ := cookiejar.New(nil)
	return jar
}

var statOnce sync.Once

// statSources stats what the binaries are built from: go test records what
// a test stats, so a cached result is dropped when the daemon or its page
// changes.
func statSources() {
	filepath.WalkDir(bins.Module, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() && p != bins.Module && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".js", ".html", ".css", ".mod", ".sum":
			os.Stat(p)
		}
		return nil
	})
}
