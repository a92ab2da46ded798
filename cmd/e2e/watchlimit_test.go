package e2e

import (
	"bufio"
	"context"
	"fmt"
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

// degradedStatus is the part of ckpt status --json about unwatched
// directories.
type degradedStatus struct {
	Daemon struct {
		Running  bool `json:"running"`
		Degraded *struct {
			Reason        string   `json:"reason"`
			UnwatchedDirs int      `json:"unwatched_dirs"`
			Dirs          []string `json:"dirs"`
		} `json:"degraded"`
	} `json:"daemon"`
	Importing *struct{} `json:"importing"`
	Changes   []change  `json:"changes"`
}

// TestWatchLimitDegraded: ckptd runs out of inotify watches (a limit of
// 30 for a workspace of 61 directories) and keeps serving: status names
// the unwatched directories, their count and the sysctl to run; a change
// in an unwatched directory is captured by the periodic re-walk, with no
// command asking (it arrives on the event stream), and status lists it.
//
// The limit is lowered in a user namespace of the daemon's own
// (/proc/sys/user/max_inotify_watches, Linux 5.11 and later), not in
// /proc/sys/fs/inotify/max_user_watches: that one binds every process of
// the user on the machine, other test runs included.
func TestWatchLimitDegraded(t *testing.T) {
	requireDaemon(t)
	if os.Geteuid() != 0 {
		t.Skip("a user namespace mapped to root needs root")
	}
	probe := exec.Command("sh", "-c", "echo 30 > /proc/sys/user/max_inotify_watches")
	probe.SysProcAttr = userNS()
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("cannot set an inotify watch limit in a user namespace: %v %s", err, out)
	}
	ws := newWorkspace(t, daemon, "CKPT_RESCAN_INTERVAL=1s")
	const dirs = 60
	for d := range dirs {
		ws.write(fmt.Sprintf("d%02d/f.txt", d), "v0\n")
	}
	log, err := os.Create(filepath.Join(ws.logs, "ckptd-limit.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command("sh", "-c", `echo 30 > /proc/sys/user/max_inotify_watches && exec "$0" watch "$1"`, ckptdBin, ws.root)
	cmd.Dir, cmd.Env = ws.root, ws.env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = userNS()
	cmd.SysProcAttr.Setpgid = true
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
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	sock := filepath.Join(ws.state, "ckptd.sock")
	var st degradedStatus
	deadline := time.Now().Add(30 * time.Second)
	for {
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			r := ws.ckptResult("status", "--json")
			st = degradedStatus{}
			if r.code == 0 && decodeOne(r.stdout, &st) == nil && st.Daemon.Running && st.Importing == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("ckptd did not serve the workspace within 30s%s", logTail(log.Name()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	d := st.Daemon.Degraded
	if d == nil {
		t.Fatalf("status with 61 directories and a watch limit of 30: no degraded field%s", logTail(log.Name()))
	}
	if d.UnwatchedDirs < dirs+1-30 || len(d.Dirs) == 0 {
		t.Errorf("degraded: %d unwatched directories named %q; want at least %d, and their names", d.UnwatchedDirs, d.Dirs, dirs+1-30)
	}
	if !strings.Contains(d.Reason, "sysctl fs.inotify.max_user_watches=") || !strings.Contains(d.Reason, "/etc/sysctl.d/") {
		t.Errorf("degraded.reason does not say what to set: %q", d.Reason)
	}
	if text := ws.ckptOK("status"); !strings.Contains(text, "degraded:") {
		t.Errorf("ckpt status (text) does not say the daemon is degraded:\n%s", text)
	}
	unwatched := d.Dirs[len(d.Dirs)-1]
	if unwatched == "" {
		t.Fatalf("the root itself is unwatched: %+v", d)
	}

	// A change under an unwatched directory, and no command to sync: the
	// periodic re-walk (rescan_interval 1s) captures it.
	events, stop := subscribeEvents(t, sock, ws.root)
	defer stop()
	added := unwatched + "/added-while-degraded.txt"
	ws.write(added, "found by a re-walk\n")
	deadline = time.Now().Add(15 * time.Second)
	for found := false; !found; {
		select {
		case line := <-events:
			found = strings.Contains(line, added)
		case <-time.After(time.Until(deadline)):
			t.Fatalf("no event for %s within 15s: the periodic re-walk did not capture it%s", added, logTail(log.Name()))
		}
	}
	var after degradedStatus
	ws.ckptJSON(&after, "status")
	for _, c := range after.Changes {
		if c.Path == added && c.Kind == "added" {
			return
		}
	}
	t.Errorf("status after the re-walk does not list %s as added: %+v", added, after.Changes)
}

// userNS runs a process in a user namespace of its own, root mapped to
// root: its inotify limits can be set without touching the machine's.
func userNS() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
	}
}

// subscribeEvents reads GET /v1/events for root on the daemon's socket and
// sends its data lines.
func subscribeEvents(t *testing.T, sock, root string) (<-chan string, func()) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://ckptd/v1/events?workspace="+url.QueryEscape(root), nil)
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET /v1/events: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET /v1/events: %s", resp.Status)
	}
	lines := make(chan string, 1024)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data:") {
				select {
				case lines <- sc.Text():
				default:
				}
			}
		}
	}()
	return lines, cancel
}
