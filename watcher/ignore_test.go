package watcher

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type ignCase struct {
	path  string
	isDir bool
	want  bool
}

func ignCheck(t *testing.T, ig *Ignorer, cases []ignCase) {
	t.Helper()
	for _, c := range cases {
		if got := ig.Ignored(c.path, c.isDir); got != c.want {
			t.Errorf("Ignored(%q, %v) = %v, want %v", c.path, c.isDir, got, c.want)
		}
	}
}

// ignCasePaths creates the cases' paths under root and lists them.
func ignCasePaths(t *testing.T, root string, cases []ignCase) []string {
	t.Helper()
	tr := ignTree{}
	var paths []string
	for _, c := range cases {
		if c.isDir {
			tr[c.path+"/"] = ""
		} else {
			tr[c.path] = ""
		}
		paths = append(paths, c.path)
	}
	tr.write(t, root)
	return paths
}

func TestCkptignorePrecedence(t *testing.T) {
	gitignore := map[string]string{
		"":    "*.log\n!keep.log\nbuild/\n",
		"sub": "!*.bin\n",
	}
	ckptignore := map[string]string{
		"":    "keep.log\n!debug.log\n*.bin\n!build/\n",
		"sub": "local.txt\n",
	}
	cases := []ignCase{
		{"keep.log", false, true},   // .ckptignore beats the same directory's .gitignore
		{"debug.log", false, false}, // ... also to re-include
		{"other.log", false, true},  // .gitignore still applies
		{"a.bin", false, true},
		{"sub/a.bin", false, false}, // a deeper .gitignore beats the root's .ckptignore
		{"build/x.txt", false, false},
		{"sub/local.txt", false, true},
		{"local.txt", false, false},
	}
	root := ignGitRepo(t)
	paths := ignCasePaths(t, root, cases)
	ig := NewIgnorer(root, nil)
	for dir, s := range gitignore {
		ignWrite(t, filepath.Join(root, dir, ".gitignore"), s)
		ignWrite(t, filepath.Join(root, dir, ".ckptignore"), ckptignore[dir])
	}
	ignCheck(t, ig, cases)

	// Git agrees with a .gitignore holding both files, .ckptignore last.
	git := ignGitRepo(t)
	ignCasePaths(t, git, cases)
	for dir, s := range gitignore {
		ignWrite(t, filepath.Join(git, dir, ".gitignore"), s+ckptignore[dir])
	}
	for p, ignored := range gitIgnored(t, git, "", paths) {
		if got := ig.Ignored(p, false); got != ignored {
			t.Errorf("Ignored(%q) = %v, git with merged files says %v", p, got, ignored)
		}
	}
}

func TestExtraPatterns(t *testing.T) {
	extra := []string{"*.tmp", "!special.tmp", "/top.md", "generated/", "# comment", "", "spaces.txt  ", "!info.tmp", "!root.tmp"}
	cases := []ignCase{
		{"a.tmp", false, true},
		{"sub/b.tmp", false, true},
		{"special.tmp", false, false},
		{"top.md", false, true},
		{"sub/top.md", false, false},
		{"generated", true, true},
		{"sub/generated/x.go", false, true},
		{"# comment", false, false},
		{"spaces.txt", false, true},
		{"info.tmp", false, true},  // info/exclude beats extra
		{"root.tmp", false, false}, // .gitignore beats extra
		{"plain.go", false, false},
	}
	root := ignGitRepo(t)
	paths := ignCasePaths(t, root, cases)
	ignTree{
		".gitignore":        "!root.tmp\n",
		".git/info/exclude": "info.tmp\n",
	}.write(t, root)
	ig := NewIgnorer(root, extra)
	ignCheck(t, ig, cases)

	// Git agrees when the same lines are its core.excludesFile.
	excludes := filepath.Join(t.TempDir(), "excludes")
	ignWrite(t, excludes, strings.Join(extra, "\n"))
	for p, ignored := range gitIgnored(t, root, excludes, paths) {
		if got := ig.Ignored(p, strings.HasSuffix(p, "generated")); got != ignored {
			t.Errorf("Ignored(%q) = %v, git with core.excludesFile says %v", p, got, ignored)
		}
	}
}

func TestAlwaysIgnored(t *testing.T) {
	var nilIgnorer *Ignorer
	for _, ig := range []*Ignorer{NewIgnorer(t.TempDir(), []string{"!*", "!.git"}), nilIgnorer} {
		ignCheck(t, ig, []ignCase{
			{"", true, false},
			{".git", true, true},
			{".git", false, true}, // a worktree's .git file
			{".git/config", false, true},
			{"sub/.git/HEAD", false, true},
			{"sub/.git", false, true},
			{".gitx", false, false},
			{".ckpt~cookie-1", false, true},
			{"a/.ckpt~restore-2", false, true},
			{".ckpt~dir/x", false, true},
			{"a.ckpt~", false, false},
			{"a/b.txt", false, false},
		})
	}
	if !IsInternal(".ckpt~x") || IsInternal("x.ckpt~") || !IsIgnoreFile(".gitignore") || !IsIgnoreFile(".ckptignore") || IsIgnoreFile("gitignore") {
		t.Error("IsInternal or IsIgnoreFile wrong")
	}
}

func TestInvalidate(t *testing.T) {
	root := t.TempDir()
	ignTree{"sub/a.txt": "", "b.txt": "", ".git/info/": ""}.write(t, root)
	ig := NewIgnorer(root, nil)
	write := func(rel, content string) { t.Helper(); ignWrite(t, filepath.Join(root, rel), content) }
	ignCheck(t, ig, []ignCase{{"sub/a.txt", false, false}, {"b.txt", false, false}})

	write("sub/.gitignore", "a.txt\n")
	ignCheck(t, ig, []ignCase{{"sub/a.txt", false, false}}) // cached until invalidated
	ig.Invalidate("sub")
	ignCheck(t, ig, []ignCase{{"sub/a.txt", false, true}})

	write("sub/.ckptignore", "!a.txt\n")
	ig.Invalidate("sub")
	ignCheck(t, ig, []ignCase{{"sub/a.txt", false, false}})

	os.Remove(filepath.Join(root, "sub/.ckptignore"))
	ig.Invalidate("sub")
	ignCheck(t, ig, []ignCase{{"sub/a.txt", false, true}})

	write(".git/info/exclude", "b.txt\n")
	ig.Invalidate("")
	ignCheck(t, ig, []ignCase{{"b.txt", false, true}})

	write(".gitignore", "sub/\n")
	ig.Invalidate(".")
	ignCheck(t, ig, []ignCase{{"sub", true, true}, {"sub/a.txt", false, true}})
}

func TestIgnorerConcurrent(t *testing.T) {
	root := t.TempDir()
	ignTree{".gitignore": "*.o\n", "a/.gitignore": "!x.o\n", "a/b/c/.gitignore": "c.txt\n"}.write(t, root)
	ig := NewIgnorer(root, []string{"*.tmp"})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				if g == 0 && i%10 == 0 {
					ig.Invalidate("a")
					ig.Invalidate("")
				}
				if !ig.Ignored("a/b/y.o", false) || ig.Ignored("a/x.o", false) ||
					!ig.Ignored("a/b/c/c.txt", false) || !ig.Ignored("z.tmp", false) {
					t.Error("wrong answer under concurrency")
					return
				}
			}
		}()
	}
	wg.Wait()
}
