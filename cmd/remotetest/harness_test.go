package remotetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/cmd/internal/testbin"
	"github.com/ckptdev/ckpt/store/remote/weedtest"
)

var (
	ckptBin, ckptdBin string
	weed              *weedtest.Server
	skipWhy           string
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	if skipWhy = weedtest.SkipReason(); skipWhy == "" {
		bins, err := testbin.Build()
		if err != nil || bins.CkptdErr != nil {
			fmt.Fprintln(os.Stderr, "remotetest: build:", err, bins.CkptdErr)
			return 1
		}
		ckptBin, ckptdBin = bins.Ckpt, bins.Ckptd
		dir, err := os.MkdirTemp("", "ckpt-weed-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "remotetest:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		if weed, err = weedtest.Start(dir); err != nil {
			fmt.Fprintln(os.Stderr, "remotetest: start SeaweedFS:", err)
			return 1
		}
		defer weed.Stop()
	}
	return m.Run()
}

// commandTimeout bounds one ckpt command (the benchmark raises it).
var commandTimeout = 3 * time.Minute

func needWeed(t *testing.T) {
	t.Helper()
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
}

// machine is one machine's ckpt: a home, a state directory and the
// environment every command and daemon gets.
type machine struct {
	t      *testing.T
	base   string
	state  string
	env    []string
	daemon *exec.Cmd
	dlog   string
	ddone  chan struct{}
}

// newMachine makes a machine whose remote is url (on the test server),
// with extra KEY=VALUE settings.
func newMachine(t *testing.T, url string, extra ...string) *machine {
	t.Helper()
	base, err := os.MkdirTemp("", "ckpt-rt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	base, _ = filepath.EvalSymlinks(base)
	m := &machine{t: t, base: base, state: filepath.Join(base, "state")}
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CKPT_") || strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "XDG_") || k == "HOME" {
			continue
		}
		m.env = append(m.env, kv)
	}
	// Commands stay embedded unless the test starts a daemon itself.
	m.env = append(m.env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "CKPT_STATE_DIR="+m.state, "CKPT_AUTOSTART=0")
	m.env = append(m.env, weed.Env()...)
	if url != "" {
		m.env = append(m.env, "CKPT_REMOTE="+url)
	}
	m.env = append(m.env, extra...)
	return m
}

// dir makes a directory of the machine's.
func (m *machine) dir(name string) string {
	d := filepath.Join(m.base, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		m.t.Fatal(err)
	}
	return d
}

type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("ckpt %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// ckpt runs ckpt in dir with the machine's environment (and env).
func (m *machine) ckpt(dir string, env []string, args ...string) result {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, ckptBin, args...)
	cmd.Dir, cmd.Env = dir, append(append([]string(nil), m.env...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		m.t.Fatalf("ckpt %v: %v", args, err)
	}
	return r
}

// ok runs ckpt and fails the test unless it exits 0.
func (m *machine) ok(dir string, args ...string) string {
	m.t.Helper()
	r := m.ckpt(dir, nil, args...)
	if r.code != 0 {
		m.t.Fatalf("%s", r)
	}
	return r.stdout
}

// json runs ckpt --json and decodes its one object into v.
func (m *machine) json(dir string, v any, args ...string) {
	m.t.Helper()
	out := m.ok(dir, append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		m.t.Fatalf("ckpt %v --json: %v\n%s", args, err, out)
	}
}

// startDaemon runs ckptd watch root until the test ends (or stopDaemon).
func (m *machine) startDaemon(root string) {
	m.t.Helper()
	m.dlog = filepath.Join(m.base, "ckptd.log")
	log, err := os.Create(m.dlog)
	if err != nil {
		m.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(ckptdBin, "watch", root)
	cmd.Env, cmd.Stdout, cmd.Stderr = m.env, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	m.daemon, m.ddone = cmd, done
	m.t.Cleanup(m.stopDaemon)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var s struct{ Daemon struct{ Running bool } }
		r := m.ckpt(root, []string{"CKPT_LOCK_TIMEOUT=200ms"}, "status", "--json")
		if r.code == 0 && json.Unmarshal([]byte(r.stdout), &s) == nil && s.Daemon.Running {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(m.dlog)
	m.t.Fatalf("ckptd did not serve %s within 30s; its log:\n%s", root, b)
}

func (m *machine) stopDaemon() {
	if m.daemon == nil {
		return
	}
	m.daemon.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.ddone:
	case <-time.After(20 * time.Second):
		syscall.Kill(-m.daemon.Process.Pid, syscall.SIGKILL)
		<-m.ddone
	}
	m.daemon = nil
}

func (m *machine) daemonLog() string {
	b, _ := os.ReadFile(m.dlog)
	return string(b)
}

// entry is one path of a tree as the disk has it.
type entry struct {
	Mode    fs.FileMode
	Content string // a file's bytes, a symlink's target
}

// readTree is every path under root but ckpt's own, exactly.
func readTree(t *testing.T, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{Mode: info.Mode()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.Content, err = os.Readlink(p)
		case info.Mode().IsRegular():
			var b []byte
			b, err = os.ReadFile(p)
			e.Content = string(b)
		case info.IsDir():
			e.Mode = fs.ModeDir // a directory's own bits are not recorded
		}
		out[rel] = e
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, got, want map[string]entry) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s: missing", p)
		case g.Mode != w.Mode:
			t.Errorf("%s: mode %v, want %v", p, g.Mode, w.Mode)
		case g.Content != w.Content:
			t.Errorf("%s: content differs (%d bytes, want %d)", p, len(g.Content), len(w.Content))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: not in the checkpoint", p)
		}
	}
}

// writeFiles writes a tree literal under root: a value starting "->" is a
// symlink; a path ending in "*" is executable.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		mode := fs.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.Remove(full)
		var err error
		if target, ok := strings.CutPrefix(c, "->"); ok {
			err = os.Symlink(target, full)
		} else {
			err = os.WriteFile(full, []byte(c), mode)
			if err == nil {
				err = os.Chmod(full, mode)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// bucketURL is a new bucket's remote URL, under a prefix.
func bucketURL(t *testing.T) (bucket, url string) {
	bucket = weed.Bucket(t)
	return bucket, "s3://" + bucket + "/fleet"
}

// objects lists the keys in bucket under prefix.
func objects(t *testing.T, bucket, prefix string) []string {
	t.Helper()
	var keys []string
	for o := range weed.Client().ListObjects(context.Background(), bucket, listOpts(prefix)) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	return keys
}
