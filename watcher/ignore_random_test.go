package watcher

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestIgnoredRandomAgainstGit generates random ignore files and paths from a
// small alphabet, so that patterns and paths often meet, and compares
// Ignored with git check-ignore on each. Set CKPT_IGNORE_ROUNDS for more.
func TestIgnoredRandomAgainstGit(t *testing.T) {
	rounds := 4
	if testing.Short() {
		rounds = 1
	}
	if n, err := strconv.Atoi(os.Getenv("CKPT_IGNORE_ROUNDS")); err == nil {
		rounds = n
	}
	for round := range rounds {
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		root := ignGitRepo(t)
		names := []string{"a", "b", "ab", "a.x", "b.y", "c", "x*", "[a]", " a", "a "}
		randPath := func() string {
			var parts []string
			for range 1 + rng.IntN(4) {
				parts = append(parts, names[rng.IntN(len(names))])
			}
			return strings.Join(parts, "/")
		}
		pieces := []string{"a", "b", "*", "**", "?", "/", ".x", "[ab]", "[!a]", `\a`, "c", "**/", "/**", "/**/", "x\\*", "[a-c]", `\[a]`, " ", `\ `, "#", "[[:alpha:]]"}
		randPattern := func() string {
			var sb strings.Builder
			if rng.IntN(4) == 0 {
				sb.WriteString("!")
			}
			for range 1 + rng.IntN(4) {
				sb.WriteString(pieces[rng.IntN(len(pieces))])
			}
			return sb.String()
		}
		// Files first: a path is either a file or a directory, never both.
		files := map[string]bool{}
		for range 40 {
			p := randPath()
			ok := true
			for q := range files {
				if strings.HasPrefix(q+"/", p+"/") || strings.HasPrefix(p+"/", q+"/") {
					ok = false
				}
			}
			if ok {
				files[p] = true
			}
		}
		isDir := map[string]bool{"": true}
		var paths []string
		for f := range files {
			ignWriteAll(t, filepath.Join(root, f), "")
			for d := filepath.Dir(f); d != "."; d = filepath.Dir(d) {
				isDir[d] = true
			}
			paths = append(paths, f)
		}
		for d := range isDir {
			if d != "" {
				paths = append(paths, d)
			}
			if rng.IntN(2) == 0 {
				var lines []string
				for range 1 + rng.IntN(4) {
					lines = append(lines, randPattern())
				}
				ignWrite(t, filepath.Join(root, d, ".gitignore"), strings.Join(lines, "\n")+"\n")
			}
		}
		git := gitIgnored(t, root, "", paths)
		ig := NewIgnorer(root, nil)
		for _, p := range paths {
			if got := ig.Ignored(p, isDir[p]); got != git[p] {
				t.Errorf("round %d: Ignored(%q, %v) = %v, git says %v; ignore files:\n%s", round, p, isDir[p], got, git[p], ignDump(root))
			}
		}
		walked := map[string]bool{}
		err := (&Walker{Root: root, Ignorer: NewIgnorer(root, nil)}).Walk(context.Background(), func(rel string, _ fs.FileInfo) error {
			walked[rel] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for f := range files {
			if walked[f] == git[f] {
				t.Errorf("round %d: walk visited %q: %v, git ignores it: %v", round, f, walked[f], git[f])
			}
		}
	}
}

func ignWriteAll(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	ignWrite(t, name, content)
}

func ignDump(root string) string {
	var sb strings.Builder
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d != nil && d.Name() == ".gitignore" {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			sb.WriteString(rel + ": " + strings.ReplaceAll(string(data), "\n", " | ") + "\n")
		}
		return nil
	})
	return sb.String()
}
