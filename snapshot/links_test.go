package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// TestCaptureHardLinks: Capture of one name of a multiply-linked file
// records every recorded name of it, whether the link was there at the
// last scan or appeared since (the event names only the new link).
func TestCaptureHardLinks(t *testing.T) {
	cases := []struct {
		name     string
		before   func(root string) // before the scan
		after    func(root string) // after the scan, captured through afterCap
		afterCap []string
		write    string // the name written through
		want     []string
	}{
		{
			name:   "linked before the scan",
			before: func(root string) { linkTestLink(t, root, "a", "b") },
			write:  "a",
			want:   []string{"a", "b"},
		},
		{
			name:     "linked after the scan, written through the new name",
			after:    func(root string) { linkTestLink(t, root, "a", "d/b") },
			afterCap: []string{"d/b"},
			write:    "d/b",
			want:     []string{"a", "d/b"},
		},
		{
			name:     "linked after the scan, written through the old name",
			after:    func(root string) { linkTestLink(t, root, "a", "b") },
			afterCap: []string{"b"},
			write:    "a",
			want:     []string{"a", "b"},
		},
		{
			name:     "a name replaced by a file of its own is not written by the other",
			before:   func(root string) { linkTestLink(t, root, "a", "b") },
			after:    func(root string) { linkTestReplace(t, root, "b", "own\n") },
			afterCap: []string{"b"},
			write:    "a",
			want:     []string{"a"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newPruneEnv(t)
			linkTestWrite(t, e.root, "a", "hi\n")
			linkTestWrite(t, e.root, "other", "o\n")
			if tc.before != nil {
				tc.before(e.root)
			}
			e.reconcile()
			if tc.after != nil {
				tc.after(e.root)
				e.must(e.ws.Capture(e.ctx, tc.afterCap))
			}
			head := e.ws.Store().Head()
			f, err := os.OpenFile(filepath.Join(e.root, tc.write), os.O_APPEND|os.O_WRONLY, 0)
			e.must(err)
			_, err = f.WriteString("more\n")
			e.must(errors.Join(err, f.Close()))
			e.must(e.ws.Capture(e.ctx, []string{tc.write}))
			fcs, err := e.ws.Diff(head, e.ws.Store().Head(), nil, nil)
			e.must(err)
			var got []string
			for _, fc := range fcs {
				if fc.Kind != store.Modified {
					t.Errorf("%s: %s, want modified", fc.Path, fc.Kind)
				}
				got = append(got, fc.Path)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Capture(%s) recorded %v, want %v", tc.write, got, tc.want)
			}
		})
	}
}

func linkTestWrite(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func linkTestLink(t *testing.T, root, oldRel, newRel string) {
	t.Helper()
	p := filepath.Join(root, newRel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(root, oldRel), p); err != nil {
		t.Fatal(err)
	}
}

// linkTestReplace writes content to a new file renamed over rel.
func linkTestReplace(t *testing.T, root, rel, content string) {
	t.Helper()
	tmp := filepath.Join(root, rel+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}
