package textdiff

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnifiedGitApplyAndPatch: what Unified writes is a patch the real tools
// take: git apply --check accepts it, and git apply and patch -p1 turn each
// a into b, files created (from /dev/null) and deleted (to /dev/null)
// included.
func TestUnifiedGitApplyAndPatch(t *testing.T) {
	type fileCase struct {
		name, a, b       string
		absentA, absentB bool
	}
	cases := []fileCase{
		{name: "new.txt", b: "one\ntwo\n", absentA: true},
		{name: "new-no-eol.txt", b: "x", absentA: true},
		{name: "gone.txt", a: "one\ntwo\nthree\n", absentB: true},
		{name: "filled.txt", a: "", b: "one\n"},
		{name: "eol-added.txt", a: "1\n2\n3", b: "1\n2\n3\n"},
		{name: "eol-removed.txt", a: "1\n2\n3\n", b: "1\n2\n3"},
		{name: "dir/nested.txt", a: "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n", b: "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\nl\nn\nN2\n"},
		{name: "dash-lines.txt", a: "--- x\n+++ y\n@@ z\n", b: "--- x\n+++ Y\n@@ z\n"},
	}
	rng := rand.New(rand.NewSource(5))
	for i := 0; len(cases) < 300; i++ {
		a := randomText(rng, rng.Intn(40))
		b := mutateText(rng, a)
		if a == b {
			continue
		}
		cases = append(cases, fileCase{name: fmt.Sprintf("r%03d.txt", i), a: a, b: b})
	}
	var patch strings.Builder
	for _, c := range cases {
		p, bin := Unified(c.name, []byte(c.a), []byte(c.b), c.absentA, c.absentB, 3)
		if bin || p == "" {
			t.Fatalf("%s: no patch (binary %v)", c.name, bin)
		}
		patch.WriteString(p)
	}
	for _, tool := range [][]string{{"git", "apply"}, {"patch", "-p1", "--quiet", "--batch", "-i"}} {
		t.Run(tool[0], func(t *testing.T) {
			if _, err := exec.LookPath(tool[0]); err != nil {
				t.Skipf("no %s", tool[0])
			}
			dir := t.TempDir()
			for _, c := range cases {
				if !c.absentA {
					writeTestFile(t, filepath.Join(dir, c.name), c.a)
				}
			}
			patchFile := filepath.Join(t.TempDir(), "all.patch")
			writeTestFile(t, patchFile, patch.String())
			if tool[0] == "git" {
				run(t, dir, "git", "apply", "--check", patchFile)
			}
			run(t, dir, append(tool, patchFile)...)
			for _, c := range cases {
				got, err := os.ReadFile(filepath.Join(dir, c.name))
				switch {
				case c.absentB && !errors.Is(err, fs.ErrNotExist):
					t.Errorf("%s: still there after the patch deleted it (%v)", c.name, err)
				case c.absentB:
				case err != nil:
					t.Errorf("%s: %v", c.name, err)
				case string(got) != c.b:
					t.Errorf("%s: patched to %q, want %q", c.name, got, c.b)
				}
			}
		})
	}
}

func writeTestFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
