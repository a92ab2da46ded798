package testbin

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSourceHash: the hash changes with a Go source file, go.mod or go.sum
// of the module, and not with a test file, testdata or a dot directory.
func TestSourceHash(t *testing.T) {
	module := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(module, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := func() string {
		t.Helper()
		s, err := sourceHash(module, "go")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write("go.mod", "module x\n")
	write("a/a.go", "package a\n")
	prev := sum()
	for _, c := range []struct {
		rel, content string
		changes      bool
	}{
		{"a/a.go", "package a // edited\n", true},
		{"b/b.go", "package b\n", true},
		{"go.sum", "x v1 h1:\n", true},
		{"go.mod", "module x\n\ngo 1.26\n", true},
		{"a/a_test.go", "package a\n", false},
		{"a/testdata/c.go", "package c\n", false},
		{".git/d.go", "package d\n", false},
		{"a/notes.txt", "hi\n", false},
	} {
		write(c.rel, c.content)
		got := sum()
		if changed := got != prev; changed != c.changes {
			t.Errorf("writing %s: hash changed = %v, want %v", c.rel, changed, c.changes)
		}
		prev = got
	}
}

// TestBuildOnce: Build builds runnable binaries, and a second call (as from
// another test binary of the same sources) reuses the same directory.
func TestBuildOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ckpt and ckptd")
	}
	b, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	if b.CkptdErr != nil {
		t.Fatal(b.CkptdErr)
	}
	for _, p := range []string{b.Ckpt, b.Ckptd, filepath.Join(b.Dir, stampName)} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	again, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if again != b {
		t.Errorf("a second build returned %+v, want the first one's %+v", again, b)
	}
}
