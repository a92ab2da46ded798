// Package testbin builds the ckpt and ckptd binaries for end-to-end tests,
// once for all the test binaries of a go test run.
//
// go test ./cmd/... runs several test binaries (cmd/e2e, cmd/ckptd,
// cmd/ckpt), each of which needs the real binaries. Build links them into a
// directory under os.TempDir() named by a hash of everything they are built
// from: the module's Go sources (test files excluded), the page files it
// embeds (.html, .css, .js), go.mod, go.sum, the
// module's path and the Go toolchain and build environment. A lock file next
// to that directory serializes test binaries running in parallel: the first
// builds, the others wait and reuse what it built. A directory is complete
// only once its stamp file exists, so a build killed half-way is redone.
// Directories not used for a day are removed.
//
// Only tests import this package.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Binaries are the built binaries.
type Binaries struct {
	// Module is the module's root directory.
	Module string
	// Dir holds both binaries, named ckpt and ckptd. It and they are
	// readable and executable by every user.
	Dir string
	// Ckpt is the client, Ckptd the daemon; Ckptd is "" when CkptdErr is
	// set.
	Ckpt, Ckptd string
	// CkptdErr says why cmd/ckptd did not build, with the compiler's
	// output. The client may still be usable without it.
	CkptdErr error
}

const (
	dirPrefix = "ckpt-testbin-"
	stampName = ".built"
	// staleAfter is how long a directory may go unused before a build
	// removes it.
	staleAfter = 24 * time.Hour
)

var (
	once   sync.Once
	built  Binaries
	buildE error
)

// Build returns the binaries for the module that contains the working
// directory, building them if no test binary has built these sources yet.
// Within one process it builds at most once. The error is about the
// client (or the set-up); a daemon that does not build is reported in
// Binaries.CkptdErr.
func Build() (Binaries, error) {
	once.Do(func() { built, buildE = build() })
	return built, buildE
}

func build() (Binaries, error) {
	module, err := moduleRoot()
	if err != nil {
		return Binaries{}, err
	}
	goBin := goTool()
	sum, err := sourceHash(module, goBin)
	if err != nil {
		return Binaries{}, fmt.Errorf("hash the module's sources: %w", err)
	}
	dir := filepath.Join(os.TempDir(), dirPrefix+sum)
	unlock, err := lock(dir + ".lock")
	if err != nil {
		return Binaries{}, err
	}
	defer unlock()
	b := Binaries{Module: module, Dir: dir, Ckpt: filepath.Join(dir, "ckpt"), Ckptd: filepath.Join(dir, "ckptd")}
	stamp := filepath.Join(dir, stampName)
	if _, err := os.Stat(stamp); err == nil {
		now := time.Now()
		os.Chtimes(stamp, now, now)
		return b, nil
	}
	removeStale()
	if err := os.RemoveAll(dir); err != nil {
		return Binaries{}, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return Binaries{}, err
	}
	// Mkdir's mode is filtered by the umask; tests run the binaries as
	// other users too.
	if err := os.Chmod(dir, 0o755); err != nil {
		return Binaries{}, err
	}
	if out, err := goBuild(goBin, module, b.Ckpt, "./cmd/ckpt"); err != nil {
		return Binaries{}, fmt.Errorf("go build ./cmd/ckpt: %v\n%s", err, out)
	}
	if out, err := goBuild(goBin, module, b.Ckptd, "./cmd/ckptd"); err != nil {
		// Not stamped: the next test binary tries again and reports the
		// same error.
		b.Ckptd, b.CkptdErr = "", fmt.Errorf("go build ./cmd/ckptd: %v\n%s", err, out)
		return b, nil
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		return Binaries{}, err
	}
	return b, nil
}

func goBuild(goBin, module, out, pkg string) ([]byte, error) {
	cmd := exec.Command(goBin, "build", "-o", out, pkg)
	cmd.Dir = module
	return cmd.CombinedOutput()
}

// goTool is the go command that runs the tests.
func goTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); isFile(p) {
			return p
		}
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testbin: no go.mod above the working directory")
		}
		dir = parent
	}
}

// sourceHash hashes what the binaries are built from.
func sourceHash(module, goBin string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "module %s\ngo %s %s %s/%s\n", module, goBin, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, v := range []string{"CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOTOOLCHAIN"} {
		fmt.Fprintf(h, "%s=%s\n", v, os.Getenv(v))
	}
	err := filepath.WalkDir(module, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != module && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) || name == "go.mod" || name == "go.sum" || embedded(name) {
			return hashFile(h, module, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// embedded reports whether a file is of a kind the binaries embed (the web
// panel's page and assets): it is built from too.
func embedded(name string) bool {
	for _, ext := range []string{".html", ".css", ".js"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func hashFile(h hash.Hash, module, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	rel, _ := filepath.Rel(module, p)
	info, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %q %d\n", rel, info.Size())
	_, err = io.Copy(h, f)
	return err
}

// lock takes an exclusive flock on path, waiting for other test binaries.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// removeStale removes the directories of builds not used for staleAfter,
// skipping any that another process holds the lock of.
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		if strings.HasSuffix(dir, ".lock") {
			continue
		}
		info, err := os.Stat(filepath.Join(dir, stampName))
		if err == nil && time.Since(info.ModTime()) < staleAfter {
			continue
		}
		if err != nil {
			// Unstamped: a failed build, or one still running.
			if info, err = os.Stat(dir); err != nil || time.Since(info.ModTime()) < staleAfter {
				continue
			}
		}
		f, err := os.OpenFile(dir+".lock", os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			continue
		}
		// The lock file stays: removing it would let a process that
		// opened it before and one that creates it anew both hold "the"
		// lock.
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}
