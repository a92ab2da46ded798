package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/cmd/internal/testbin"
)

// Set by TestMain; the binaries are built once for all test binaries
// (testbin.Build).
var (
	moduleDir string
	ckptBin   string // the ckpt client
	ckptdBin  string // the daemon; "" when daemon mode cannot run
	// noDaemon says why daemon mode is skipped: cmd/ckptd does not exist.
	noDaemon string
	// daemonBuildErr is set when cmd/ckptd exists but does not build: the
	// daemon subtests fail with it.
	daemonBuildErr string
	gofmtBin       string
)

// commandTimeout bounds every command the suite runs: a hang is a failure,
// not a stuck suite.
const commandTimeout = 60 * time.Second

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	maybeFakeDaemon()
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	moduleDir = root
	bins, err := testbin.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	ckptBin = bins.Ckpt
	if !hasGoFiles(filepath.Join(root, "cmd", "ckptd")) {
		noDaemon = "cmd/ckptd does not exist yet: daemon mode cannot run"
	} else if bins.CkptdErr != nil {
		daemonBuildErr = bins.CkptdErr.Error()
	} else {
		ckptdBin = bins.Ckptd
	}
	goroot, err := goCommand(root, "env", "GOROOT")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go env GOROOT: %v\n%s", err, goroot)
		return 1
	}
	gofmtBin = filepath.Join(strings.TrimSpace(goroot), "bin", "gofmt")
	return m.Run()
}

func goCommand(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
}

func hasGoFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			return true
		}
	}
	return false
}

var statOnce sync.Once

// statSources stats every Go source file and go.mod/go.sum of the module:
// go test records what a test stats (from m.Run on, hence not in TestMain),
// so a cached result is invalidated when the code that the binaries are
// built from changes.
func statSources() {
	statOnce.Do(func() { statTree(moduleDir) })
}

func statTree(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if n := d.Name(); strings.HasSuffix(n, ".go") || n == "go.mod" || n == "go.sum" {
			os.Stat(p)
		}
		return nil
	})
}

// mode is how ckpt runs: without a daemon, or with ckptd watching.
type mode string

const (
	embedded mode = "embedded"
	daemon   mode = "daemon"
)

// bothModes runs fn as the subtests "embedded" and "daemon".
func bothModes(t *testing.T, fn func(t *testing.T, m mode)) {
	t.Helper()
	for _, m := range []mode{embedded, daemon} {
		t.Run(string(m), func(t *testing.T) {
			if m == daemon {
				requireDaemon(t)
			}
			fn(t, m)
		})
	}
}

// requireDaemon skips the test when cmd/ckptd does not exist yet, and
// fails it when ckptd does not build.
func requireDaemon(t *testing.T) {
	t.Helper()
	switch {
	case daemonBuildErr != "":
		t.Fatal(daemonBuildErr)
	case ckptdBin == "":
		t.Skip(noDaemon)
	}
}

// result is what one command did.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int
}

func (r result) String() string {
	return fmt.Sprintf("ckpt %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// run runs a program with env in dir, bounded by commandTimeout.
func run(t *testing.T, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	return runAs(t, nil, dir, env, prog, args...)
}

// runAs is run as the user cred names (nil: this process's own).
func runAs(t *testing.T, cred *syscall.Credential, dir string, env []string, prog string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir, cmd.Env = dir, env
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	switch e := err.(type) {
	case nil:
	case *exec.ExitError:
		r.code = e.ExitCode()
	default:
		t.Fatalf("%s %s: %v", prog, strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %s did not finish within %s\n%s", prog, strings.Join(args, " "), commandTimeout, r)
	}
	return r
}
