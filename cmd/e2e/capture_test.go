package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureAnyProcess is CONTRACT semantic 1: a change by any process is
// captured with the right kind, and `ckpt status --json` lists it.
func TestCaptureAnyProcess(t *testing.T) {
	const unformatted = "package main\nfunc main(){\nx:=1\n_ = x}\n"
	many := func() []string {
		var w []string
		for i := 1; i <= 100; i++ {
			w = append(w, fmt.Sprintf("added gen/d%d/sub/f.txt", i), fmt.Sprintf("added gen/d%d/g.txt", i))
		}
		return w
	}
	cases := []struct {
		name  string
		setup func(ws *workspace)
		act   func(ws *workspace)
		want  []string // empty: the act changes nothing in the end
	}{
		{
			name:  "editor write (temp file renamed over)",
			setup: func(ws *workspace) { ws.write("notes.txt", "one\n") },
			act:   func(ws *workspace) { ws.editorWrite("notes.txt", "two\n") },
			want:  want("modified notes.txt"),
		},
		{
			name:  "in-place write",
			setup: func(ws *workspace) { ws.write("notes.txt", "one\n") },
			act:   func(ws *workspace) { ws.write("notes.txt", "two\n") },
			want:  want("modified notes.txt"),
		},
		{
			name:  "sed -i",
			setup: func(ws *workspace) { ws.write("conf/app.conf", "name=old\nport=1\n") },
			act:   func(ws *workspace) { ws.exec("sed", "-i", "s/old/new/", "conf/app.conf") },
			want:  want("modified conf/app.conf"),
		},
		{
			name:  "rm",
			setup: func(ws *workspace) { ws.write("gone.txt", "bye\n"); ws.write("stay.txt", "hi\n") },
			act:   func(ws *workspace) { ws.exec("rm", "gone.txt") },
			want:  want("deleted gone.txt"),
		},
		{
			name:  "rm -r of a directory tree",
			setup: func(ws *workspace) { ws.write("d/a", "a"); ws.write("d/e/b", "b"); ws.write("keep", "k") },
			act:   func(ws *workspace) { ws.exec("rm", "-r", "d") },
			want:  want("deleted d/a", "deleted d/e/b"),
		},
		{
			name:  "mv of a file is deleted plus added",
			setup: func(ws *workspace) { ws.write("old.txt", "content\n") },
			act:   func(ws *workspace) { ws.exec("mv", "old.txt", "new.txt") },
			want:  want("deleted old.txt", "added new.txt"),
		},
		{
			name:  "mv of a directory is a deleted subtree plus an added subtree",
			setup: func(ws *workspace) { ws.write("src/x.go", "x"); ws.write("src/sub/y.go", "y") },
			act:   func(ws *workspace) { ws.exec("mv", "src", "lib") },
			want:  want("deleted src/x.go", "deleted src/sub/y.go", "added lib/x.go", "added lib/sub/y.go"),
		},
		{
			name:  "mv of a directory away and back is no change",
			setup: func(ws *workspace) { ws.write("dir/f", "f"); ws.write("dir/sub/g", "g"); ws.write("top", "t") },
			act:   func(ws *workspace) { ws.sh("mv dir tmp && mv tmp dir") },
			want:  want(),
		},
		{
			name:  "gofmt -w",
			setup: func(ws *workspace) { ws.write("main.go", unformatted); ws.write("other.go", "package main\n") },
			act: func(ws *workspace) {
				ws.exec(gofmtBin, "-w", "main.go", "other.go")
				if ws.read("main.go") == unformatted {
					ws.t.Fatal("gofmt -w did not change main.go")
				}
			},
			want: want("modified main.go"),
		},
		{
			name:  "chmod +x",
			setup: func(ws *workspace) { ws.write("run.sh", "#!/bin/sh\n") },
			act:   func(ws *workspace) { ws.exec("chmod", "+x", "run.sh") },
			want:  want("modified run.sh"),
		},
		{
			name:  "symlink retargeted",
			setup: func(ws *workspace) { ws.write("a", "a"); ws.write("b", "b"); ws.symlink("a", "link") },
			act:   func(ws *workspace) { ws.exec("ln", "-sfn", "b", "link") },
			want:  want("modified link"),
		},
		{
			name: "a directory replaced by a symlink to a directory outside is not followed",
			setup: func(ws *workspace) {
				ws.write("d/a", "a inside\n")
				ws.write("d/c", "c inside\n")
				ws.write("../outside/target/a", "OUTSIDE a\n")
				ws.write("../outside/target/c", "OUTSIDE c\n")
			},
			act: func(ws *workspace) {
				ws.rm("d")
				ws.symlink(filepath.Join(ws.outside, "target"), "d")
			},
			want: want("added d", "deleted d/a", "deleted d/c"),
		},
		{
			name:  "ignored files are never captured",
			setup: func(ws *workspace) { ws.write(".gitignore", "*.log\nbuild/\n") },
			act: func(ws *workspace) {
				ws.write("x.log", "log\n")
				ws.write("build/out.bin", "bin")
				ws.write("kept.txt", "k")
			},
			want: want("added kept.txt"),
		},
		{
			name:  "git checkout between two commits",
			setup: setupGitRepo,
			act:   func(ws *workspace) { ws.exec("git", "-C", "repo", "checkout", "-q", "feature") },
			want:  want("modified repo/main.go", "deleted repo/old.txt", "added repo/new.txt", "added repo/pkg/deep/file.txt"),
		},
		{
			name:  "a script writing many files in new directories",
			setup: func(ws *workspace) { ws.write("README", "r\n") },
			act: func(ws *workspace) {
				ws.sh(`for i in $(seq 1 100); do mkdir -p gen/d$i/sub; echo $i > gen/d$i/sub/f.txt; echo $i > gen/d$i/g.txt; done`)
			},
			want: want(many()...),
		},
	}
	bothModes(t, func(t *testing.T, m mode) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ws := newWorkspace(t, m)
				tc.setup(ws)
				ws.start()
				before := ws.status()
				if before.Drifted || len(before.Changes) > 0 {
					t.Fatalf("right after the import: drifted %v, changes %s", before.Drifted, fmtList(kinds(before.Changes)))
				}
				tc.act(ws)
				s := ws.status()
				assertChanges(t, "ckpt status", s.Changes, tc.want)
				changed := len(tc.want) > 0
				if s.Drifted != changed {
					t.Errorf("ckpt status: drifted %v, want %v", s.Drifted, changed)
				}
				if (s.Fingerprint != before.Fingerprint) != changed {
					t.Errorf("ckpt status: fingerprint %s before, %s after; want them to differ: %v", before.Fingerprint, s.Fingerprint, changed)
				}
				for _, c := range s.Changes {
					if c.Path == ".git" || strings.HasPrefix(c.Path, ".git/") || strings.Contains(c.Path, "/.git/") || strings.Contains(c.Path, ".ckpt~") {
						t.Errorf("ckpt status lists %s: .git and ckpt's own files are never captured", c.Path)
					}
				}
			})
		}
	})
}

// setupGitRepo makes repo/ a git repository with two commits: main
// (checked out) and feature, which modifies, deletes and adds files.
func setupGitRepo(ws *workspace) {
	ws.t.Helper()
	ws.mkdirAll("repo")
	git := func(args ...string) { ws.exec("git", append([]string{"-C", "repo"}, args...)...) }
	git("init", "-q")
	git("checkout", "-q", "-b", "main")
	ws.write("repo/main.go", "package main\n\nfunc main() {}\n")
	ws.write("repo/old.txt", "old\n")
	ws.write("repo/same.txt", "same\n")
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	git("checkout", "-q", "-b", "feature")
	ws.write("repo/main.go", "package main\n\nfunc main() { println(1) }\n")
	ws.rm("repo/old.txt")
	ws.write("repo/new.txt", "new\n")
	ws.write("repo/pkg/deep/file.txt", "deep\n")
	git("add", "-A")
	git("commit", "-q", "-m", "two")
	git("checkout", "-q", "main")
	if ws.exists("repo/new.txt") || !ws.exists("repo/old.txt") {
		ws.t.Fatal("git checkout main did not restore the first commit")
	}
}
