package uitest

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ckpt ui starts a detached ckptd for the workspace when none runs, waits
// for its panel and prints the URL; a second call reuses that daemon and
// opens $BROWSER.
func TestCkptUIStartsTheDaemonAndPrintsTheURL(t *testing.T) {
	tmp := t.TempDir()
	ws, state := filepath.Join(tmp, "ws"), filepath.Join(tmp, "state")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("1\n"), 0o644)
	ui := func(extra ...string) (map[string]any, string, error) {
		cmd := exec.Command(bins.Ckpt, append([]string{"ui", "-C", ws, "--state-dir", state, "--json"}, extra...)...)
		cmd.Env = append(os.Environ(), "BROWSER="+filepath.Join(tmp, "browser.sh"), "DISPLAY=")
		out, err := cmd.Output()
		var res map[string]any
		json.Unmarshal(out, &res)
		return res, string(out), err
	}
	res, out, err := ui("--no-browser")
	if err != nil {
		t.Fatalf("ckpt ui: %v\n%s", err, out)
	}
	pid := int(res["pid"].(float64))
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	})
	if res["started"] != true || res["opened"] != false || !strings.HasPrefix(res["url"].(string), "http://127.0.0.1:") {
		t.Fatalf("ckpt ui --json = %s", out)
	}
	u := res["url"].(string)
	c := &http.Client{} // follows the hand-over redirect, keeping the cookie for the same host
	jar := newJar()
	c.Jar = jar
	resp, err := c.Get(u)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", u, err, resp)
	}
	resp.Body.Close()
	if b, err := os.ReadFile(filepath.Join(state, "ckptd.log")); err != nil || !strings.Contains(string(b), "web panel") {
		t.Errorf("the daemon's log in the state dir: %q %v", b, err)
	}

	// A second call: the same daemon, and the browser is asked to open it.
	script := "#!/bin/sh\necho \"$1\" > " + filepath.Join(tmp, "opened") + "\n"
	os.WriteFile(filepath.Join(tmp, "browser.sh"), []byte(script), 0o755)
	res2, out, err := ui()
	if err != nil || res2["started"] != false || int(res2["pid"].(float64)) != pid || res2["opened"] != true {
		t.Fatalf("second ckpt ui: %v %s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(tmp, "opened"))
		if strings.TrimSpace(string(b)) == res2["url"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("$BROWSER got %q, want %s", b, res2["url"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Bad input: exit 2, one line.
	cmd := exec.Command(bins.Ckpt, "ui", "-C", filepath.Join(tmp, "missing"), "--state-dir", state)
	if out, err := cmd.CombinedOutput(); exitCode(err) != 2 || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
		t.Errorf("ckpt ui -C missing: %v %q", err, out)
	}
}
