package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// walkResult is what one walk saw.
type walkResult struct {
	files  map[string]fs.FileInfo
	dirs   []string
	errors map[string]error
}

func walkCollect(t *testing.T, w *Walker) (walkResult, error) {
	t.Helper()
	res := walkResult{files: map[string]fs.FileInfo{}, errors: map[string]error{}}
	w.OnDir = func(rel string) error {
		res.dirs = append(res.dirs, rel) // no lock: callbacks are serialized
		return nil
	}
	w.OnError = func(rel string, err error) { res.errors[rel] = err }
	err := w.Walk(context.Background(), func(rel string, info fs.FileInfo) error {
		if _, dup := res.files[rel]; dup {
			t.Errorf("visited %q twice", rel)
		}
		res.files[rel] = info
		return nil
	})
	sort.Strings(res.dirs)
	return res, err
}

func walkKeys(m map[string]fs.FileInfo) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var walkFixture = ignTree{
	".gitignore":            "ignored/\n*.log\n",
	"a.txt":                 "a",
	"x.log":                 "",
	"d/b.txt":               "b",
	"d/e/c.txt":             "c",
	"d/e/.gitignore":        "!keep.log\n",
	"d/e/keep.log":          "",
	"link-file":             "symlink:a.txt",
	"link-dir":              "symlink:d",
	"dangling":              "symlink:nowhere",
	"empty/":                "",
	".git/HEAD":             "ref: refs/heads/main\n",
	"d/.git":                "gitdir: ../.git/modules/d\n",
	"ignored/x.txt":         "",
	"ignored/sub/y.txt":     "",
	".ckpt~cookie-1":        "",
	"d/.ckpt~restore-2":     "",
	".ckpt~dir/z.txt":       "",
	"spaces in name/f g.md": "",
}

func TestWalk(t *testing.T) {
	root := t.TempDir()
	walkFixture.write(t, root)
	for _, workers := range []int{0, 1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			w := &Walker{Root: root, Ignorer: NewIgnorer(root, nil), Workers: workers}
			res, err := walkCollect(t, w)
			if err != nil {
				t.Fatal(err)
			}
			wantFiles := []string{".gitignore", "a.txt", "d/b.txt", "d/e/.gitignore", "d/e/c.txt", "d/e/keep.log",
				"dangling", "link-dir", "link-file", "spaces in name/f g.md"}
			if got := walkKeys(res.files); !slices.Equal(got, wantFiles) {
				t.Errorf("files:\n got %q\nwant %q", got, wantFiles)
			}
			wantDirs := []string{"", "d", "d/e", "empty", "spaces in name"}
			if !slices.Equal(res.dirs, wantDirs) {
				t.Errorf("OnDir: got %q, want %q", res.dirs, wantDirs)
			}
			if len(res.errors) > 0 {
				t.Errorf("errors: %v", res.errors)
			}
			for _, l := range []string{"link-file", "link-dir", "dangling"} {
				if fi := res.files[l]; fi == nil || fi.Mode().Type() != fs.ModeSymlink {
					t.Errorf("%s: not reported as a symlink: %v", l, fi)
				}
			}
			if fi := res.files["a.txt"]; fi == nil || !fi.Mode().IsRegular() || fi.Size() != 1 {
				t.Errorf("a.txt: wrong info %v", fi)
			}
			n, err := w.Dirs(context.Background())
			if err != nil || n != len(wantDirs) {
				t.Errorf("Dirs = %d, %v; want %d", n, err, len(wantDirs))
			}
		})
	}
}

func TestWalkNoIgnorer(t *testing.T) {
	root := t.TempDir()
	walkFixture.write(t, root)
	res, err := walkCollect(t, &Walker{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"x.log", "ignored/x.txt", "ignored/sub/y.txt", "a.txt"} {
		if res.files[p] == nil {
			t.Errorf("%s not visited", p)
		}
	}
	for p := range res.files {
		if slices.ContainsFunc(strings.Split(p, "/"), alwaysIgnoredName) {
			t.Errorf("%s visited", p)
		}
	}
}

// TestWalkAgreesWithGit compares the files a walk finds with the untracked,
// not ignored files git lists, on the fixture of TestIgnoredAgreesWithGit.
func TestWalkAgreesWithGit(t *testing.T) {
	root := ignGitRepo(t)
	ignGitFixture.write(t, root)
	ignTree{"src/build/x": "", "logs/a/b": "", "a/q/z": "", "vendor/keep/k.go": "", "secret/public.txt": "",
		"sub/important.tmp": "", "sub/a.tmp": "", "keep.info": "", "x.info": "", "symgi/a.sym": "", "mid/xa/b/y": ""}.write(t, root)
	out := ignGit(t, root, "", "ls-files", "--others", "--exclude-standard", "-z")
	want := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	sort.Strings(want)
	res, err := walkCollect(t, &Walker{Root: root, Ignorer: NewIgnorer(root, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if got := walkKeys(res.files); !slices.Equal(got, want) {
		t.Errorf("walk:\n got %q\ngit %q", got, want)
	}
	ig := NewIgnorer(root, nil)
	for _, p := range want {
		if ig.Ignored(p, false) {
			t.Errorf("Ignored(%q) but walked", p)
		}
	}
}

func TestWalkRereadsChangedIgnoreFiles(t *testing.T) {
	root := t.TempDir()
	ignTree{"sub/a.txt": "", "sub/b.txt": ""}.write(t, root)
	ig := NewIgnorer(root, nil)
	if ig.Ignored("sub/a.txt", false) {
		t.Fatal("ignored before any rule")
	}
	// No Invalidate: a walk must still see the new and the changed file.
	ignWrite(t, filepath.Join(root, "sub/.gitignore"), "a.txt\n")
	w := &Walker{Root: root, Ignorer: ig}
	res, err := walkCollect(t, w)
	if err != nil {
		t.Fatal(err)
	}
	if res.files["sub/a.txt"] != nil || res.files["sub/b.txt"] == nil {
		t.Errorf("walk missed the new .gitignore: %q", walkKeys(res.files))
	}
	ignWrite(t, filepath.Join(root, "sub/.gitignore"), "b.txt\n#longer\n")
	if res, _ = walkCollect(t, w); res.files["sub/a.txt"] == nil || res.files["sub/b.txt"] != nil {
		t.Errorf("walk missed the changed .gitignore: %q", walkKeys(res.files))
	}
	if !ig.Ignored("sub/b.txt", false) {
		t.Error("the walk's reload did not reach Ignored")
	}
}

func TestWalkErrors(t *testing.T) {
	root := t.TempDir()
	ignTree{"a/1": "", "b/2": "", "c/3": "", "c/d/4": ""}.write(t, root)
	stop := errors.New("stop")

	t.Run("visit error ends the walk", func(t *testing.T) {
		n := 0
		err := (&Walker{Root: root, Workers: 4}).Walk(context.Background(), func(string, fs.FileInfo) error {
			n++
			return stop
		})
		if err != stop || n != 1 {
			t.Errorf("err = %v after %d visits; want stop after 1", err, n)
		}
	})
	t.Run("OnDir error ends the walk", func(t *testing.T) {
		w := &Walker{Root: root, OnDir: func(rel string) error {
			if rel == "c" {
				return stop
			}
			return nil
		}}
		if err := w.Walk(context.Background(), func(string, fs.FileInfo) error { return nil }); err != stop {
			t.Errorf("err = %v, want stop", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := (&Walker{Root: root}).Walk(ctx, func(string, fs.FileInfo) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("cancelled while walking", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		err := (&Walker{Root: root, Workers: 1}).Walk(ctx, func(string, fs.FileInfo) error {
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("missing root", func(t *testing.T) {
		err := (&Walker{Root: filepath.Join(root, "nope")}).Walk(context.Background(), func(string, fs.FileInfo) error { return nil })
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want not exist", err)
		}
	})
	t.Run("vanished directory is reported and the walk goes on", func(t *testing.T) {
		dir := t.TempDir()
		ignTree{"gone/x": "", "stay/y": "", "z": ""}.write(t, dir)
		w := &Walker{Root: dir}
		var got []string
		errs := map[string]error{}
		w.OnDir = func(rel string) error {
			if rel == "gone" {
				os.RemoveAll(filepath.Join(dir, "gone")) // vanishes before it is listed
			}
			return nil
		}
		w.OnError = func(rel string, err error) { errs[rel] = err }
		err := w.Walk(context.Background(), func(rel string, _ fs.FileInfo) error {
			got = append(got, rel)
			return nil
		})
		sort.Strings(got)
		if err != nil || !slices.Equal(got, []string{"stay/y", "z"}) || !errors.Is(errs["gone"], fs.ErrNotExist) || len(errs) != 1 {
			t.Errorf("err %v, visited %q, errors %v", err, got, errs)
		}
	})
}

// TestWalkRace runs a wide walk with many workers; -race checks that the
// callbacks, which share unguarded state here, are serialized.
func TestWalkRace(t *testing.T) {
	root := t.TempDir()
	tr := ignTree{".gitignore": "*.skip\n"}
	want := 0
	for i := range 20 {
		for j := range 3 {
			for k := range 5 {
				tr[fmt.Sprintf("d%d/e%d/f%d.txt", i, j, k)] = ""
				want++
			}
			tr[fmt.Sprintf("d%d/e%d/g.skip", i, j)] = ""
		}
	}
	tr.write(t, root)
	want++ // .gitignore
	seen := map[string]bool{}
	dirs := 0
	w := &Walker{Root: root, Ignorer: NewIgnorer(root, nil), Workers: 16,
		OnDir: func(string) error { dirs++; return nil }}
	err := w.Walk(context.Background(), func(rel string, _ fs.FileInfo) error {
		seen[rel] = true
		return nil
	})
	if err != nil || len(seen) != want || dirs != 1+20+20*3 {
		t.Errorf("err %v, %d files (want %d), %d dirs", err, len(seen), want, dirs)
	}
}
