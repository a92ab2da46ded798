package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStatusDuringFirstImport: the daemon serves a workspace while its
// first import runs (slowed by CKPT_TEST_SLOW_IMPORT to take seconds).
// ckpt status answers at once with the import's progress; another
// command (ckpt log) says it waits and then answers with the initial
// checkpoint; and every change made while the import ran (files
// modified, added and deleted in every directory, at several moments, so
// some directories are changed before the walk reaches them and some
// after) is in the store afterwards: a checkpoint cut after the import,
// then restored over later edits, gives back exactly what the disk held.
func TestStatusDuringFirstImport(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	const dirs, perDir = 20, 40
	for d := range dirs {
		for f := range perDir {
			ws.write(fmt.Sprintf("d%02d/f%02d.txt", d, f), fmt.Sprintf("v0 %d %d\n", d, f))
		}
	}
	// 800 files at 10 ms each: the walk alone takes eight seconds.
	logPath := ws.startSlowImport("ckptd-import.log")

	// The first answer comes while the import runs, even to a status asked
	// the moment the socket exists (the daemon is then still opening the
	// workspace). No ckpt before the socket answers: it would import the
	// workspace itself.
	deadline := time.Now().Add(30 * time.Second)
	sock := filepath.Join(ws.state, "ckptd.sock")
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	for {
		resp, err := hc.Get("http://ckptd/v1/status?workspace=" + url.QueryEscape(ws.root))
		// The daemon registers its workspaces before the socket answers:
		// the first answer is the status, never "not served".
		if err == nil {
			var first statusJSON
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || decodeOne(string(b), &first) != nil {
				t.Fatalf("GET /v1/status as soon as the socket answers: %s: %s", resp.Status, b)
			}
			if first.Importing == nil {
				t.Fatalf("GET /v1/status as soon as the socket answers was answered only after the import ended (no importing state): %s", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ckptd's socket does not answer within 30s: %v%s", err, logTail(logPath))
		}
		time.Sleep(2 * time.Millisecond)
	}
	var st statusJSON
	for {
		r := ws.ckptEnv([]string{"CKPT_LOCK_TIMEOUT=200ms"}, "status", "--json")
		if r.code == 0 && decodeOne(r.stdout, &st) == nil && st.Daemon.Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ckpt status was not answered by the daemon within 30s: %s%s", r, logTail(logPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st.Importing == nil {
		t.Fatalf("ckpt status during the first import: no importing state: %+v", st)
	}
	if st.Importing.Phase != "walking" && st.Importing.Phase != "storing" {
		t.Errorf("importing.phase %q, want walking or storing", st.Importing.Phase)
	}
	text := ws.ckptOK("status")
	if !strings.Contains(text, "importing the workspace for the first time") {
		t.Errorf("ckpt status (text) during the import does not say so:\n%s", text)
	}

	// Changes while the import runs, in every directory, at three moments.
	want := map[string]string{}
	for round := range 3 {
		for d := range dirs {
			dir := fmt.Sprintf("d%02d", d)
			ws.write(fmt.Sprintf("%s/f%02d.txt", dir, round), fmt.Sprintf("changed in round %d\n", round))
			want[fmt.Sprintf("%s/f%02d.txt", dir, round)] = fmt.Sprintf("changed in round %d\n", round)
			ws.write(fmt.Sprintf("%s/new%d.txt", dir, round), "added during the import\n")
			want[fmt.Sprintf("%s/new%d.txt", dir, round)] = "added during the import\n"
			ws.rm(fmt.Sprintf("%s/f%02d.txt", dir, 10+round))
			want[fmt.Sprintf("%s/f%02d.txt", dir, 10+round)] = ""
		}
		time.Sleep(time.Second)
	}
	var again statusJSON
	ws.ckptJSON(&again, "status")
	if again.Importing == nil {
		t.Fatalf("the import ended before the changes were made (it should take ~8 s): the test proves nothing; slow it down")
	}

	// A command that needs the baseline waits for the import, and says so:
	// a checkpoint too, whose first call does not wait (it asks again the
	// usual way).
	during := make(chan result, 1)
	go func() {
		defer close(during) // a failure to run it fails the test: no result
		during <- ws.ckptResult("checkpoint", "-m", "during the import")
	}()
	r := ws.ckptResult("log")
	if r.code != 0 || !strings.Contains(r.stdout, "initial") {
		t.Fatalf("ckpt log during the import: want it to wait and list the initial checkpoint, got\n%s", r)
	}
	if !strings.Contains(r.stderr, "waiting for it to finish") {
		t.Errorf("ckpt log during the import does not say it waits:\n%s", r)
	}
	if r := <-during; r.code != 0 || !strings.Contains(r.stdout, "during the import") || !strings.Contains(r.stderr, "waiting for it to finish") {
		t.Errorf("ckpt checkpoint during the import: want it to wait, say so and cut the checkpoint, got\n%s", r)
	}
	var after statusJSON
	ws.ckptJSON(&after, "status")
	if after.Importing != nil {
		t.Fatalf("status after the import still says importing: %+v", after)
	}

	// Nothing changed during the import is lost: cut a checkpoint, edit
	// every changed path again, restore the checkpoint, compare.
	var cp checkpointJSON
	ws.ckptJSON(&cp, "checkpoint", "-m", "after the import")
	for p := range want {
		ws.write(p, "edited after the checkpoint\n")
	}
	ws.ckptOK("restore", cp.CheckpointID, "--exact", "--yes")
	for p, content := range want {
		switch {
		case content == "" && ws.exists(p):
			t.Errorf("%s was deleted during the import; the restore of %s brought it back: the deletion was lost", p, cp.CheckpointID)
		case content != "" && !ws.exists(p):
			t.Errorf("%s was written during the import; the restore of %s removed it: the change was lost", p, cp.CheckpointID)
		case content != "" && ws.read(p) != content:
			t.Errorf("%s after the restore of %s: %q, want %q (written during the import)", p, cp.CheckpointID, ws.read(p), content)
		}
	}
}

// waitImported waits (up to a minute) until the daemon's first import of
// the workspace is done: ckpt status answers during it, with importing set.
func (ws *workspace) waitImported() {
	ws.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var st statusJSON
		ws.ckptJSON(&st, "status")
		if st.Importing == nil {
			return
		}
		if time.Now().After(deadline) {
			ws.t.Fatalf("the daemon's first import did not finish within a minute: %+v", st.Importing)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startSlowImport starts ckptd watch on the workspace with its first
// import slowed to 10 ms a file (CKPT_TEST_SLOW_IMPORT), logging to
// logName in the test's logs, and stops it when the test ends. It returns
// the log's path.
func (ws *workspace) startSlowImport(logName string) string {
	t := ws.t
	log, err := os.Create(filepath.Join(ws.logs, logName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	cmd := exec.Command(ckptdBin, "watch", ws.root)
	cmd.Dir = ws.root
	cmd.Env = append(append([]string(nil), ws.env...), "CKPT_TEST_SLOW_IMPORT=10ms")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return log.Name()
}
