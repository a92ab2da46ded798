package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// node is one path on disk: what restore must bring back exactly.
type node struct {
	Kind    string // "file", "symlink" or "dir"
	Content string // a file's bytes
	Exec    bool   // a file's executable bit (owner)
	Target  string // a symlink's target
}

func (n node) String() string {
	switch n.Kind {
	case "symlink":
		return "symlink -> " + n.Target
	case "dir":
		return "dir"
	}
	c := n.Content
	if len(c) > 60 {
		c = c[:60] + "..."
	}
	x := ""
	if n.Exec {
		x = " (exec)"
	}
	return fmt.Sprintf("file %q%s", c, x)
}

// tree maps slash-separated relative paths to what is there. Directories
// are included, so an emptied directory left behind is a difference.
type tree map[string]node

// snapshotTree reads dir without following symlinks.
func snapshotTree(t *testing.T, dir string) tree {
	t.Helper()
	tr := tree{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			tr[rel] = node{Kind: "symlink", Target: target}
		case info.IsDir():
			tr[rel] = node{Kind: "dir"}
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tr[rel] = node{Kind: "file", Content: string(b), Exec: info.Mode()&0o100 != 0}
		default:
			tr[rel] = node{Kind: info.Mode().Type().String()}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read tree %s: %v", dir, err)
	}
	return tr
}

// diffTrees lists the differences, one line each, sorted.
func diffTrees(want, got tree) []string {
	var out []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: missing (want %s)", p, w))
		case g != w:
			out = append(out, fmt.Sprintf("%s: got %s, want %s", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("%s: unexpected %s", p, g))
		}
	}
	slices.Sort(out)
	return out
}

// assertTree fails the test unless got equals want exactly.
func assertTree(t *testing.T, what string, want, got tree) {
	t.Helper()
	if d := diffTrees(want, got); len(d) > 0 {
		t.Fatalf("%s: the tree differs:\n  %s", what, strings.Join(d, "\n  "))
	}
}
