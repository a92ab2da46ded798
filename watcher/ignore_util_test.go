package watcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ignTree is a fixture: path → content. A path ending in "/" is an empty
// directory; content starting with "symlink:" makes a symlink to the rest.
type ignTree map[string]string

func (tr ignTree) write(t testing.TB, root string) {
	t.Helper()
	for p, content := range tr {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, "symlink:"); ok {
			err = os.Symlink(target, abs)
		} else {
			err = os.WriteFile(abs, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func ignWrite(t testing.TB, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ignGitRepo makes an empty git repository at a new temp dir, or skips the
// test when git is not installed.
func ignGitRepo(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	ignGit(t, root, "", "init", "-q")
	return root
}

// ignGit runs git in dir, isolated from the user's and system's config
// (so no global excludes file), with stdin as input.
func ignGit(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"XDG_CONFIG_HOME="+filepath.Join(dir, ".git", "no-xdg"),
		"HOME="+filepath.Join(dir, ".git", "no-home"),
	)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		// check-ignore exits 1 when nothing is ignored.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return string(out)
}

// gitIgnored asks `git check-ignore` about every path in one batch and
// returns which of them git ignores. excludesFile, if set, is passed as
// core.excludesFile.
func gitIgnored(t testing.TB, root, excludesFile string, paths []string) map[string]bool {
	t.Helper()
	var args []string
	if excludesFile != "" {
		args = append(args, "-c", "core.excludesFile="+excludesFile)
	}
	args = append(args, "check-ignore", "--no-index", "--verbose", "--non-matching", "-z", "--stdin")
	out := ignGit(t, root, strings.Join(paths, "\x00")+"\x00", args...)
	f := strings.Split(out, "\x00")
	got := make(map[string]bool)
	for i := 0; i+3 < len(f); i += 4 {
		source, pat, path := f[i], f[i+2], f[i+3]
		got[path] = source != "" && !strings.HasPrefix(pat, "!")
	}
	if len(got) != len(paths) {
		t.Fatalf("git check-ignore answered for %d paths, asked %d: %q", len(got), len(paths), out)
	}
	return got
}
