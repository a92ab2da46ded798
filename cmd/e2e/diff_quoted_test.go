package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffPatchQuotedNameAppliesWithGit: a name that needs quoting is
// quoted in a patch's headers as git quotes it (the whole "b/…" name), so
// git apply takes the patch.
func TestDiffPatchQuotedNameAppliesWithGit(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("tab\tname", "one\n")
		ws.start()
		ws.write("tab\tname", "two\n")
		ws.write("new\tfile", "new\n")
		patch := ws.ckptOK("diff", "--patch")
		for _, h := range []string{"--- \"a/tab\\tname\"\n", "+++ \"b/tab\\tname\"\n", "+++ \"b/new\\tfile\"\n"} {
			if !strings.Contains(patch, h) {
				t.Errorf("diff --patch: want the header %q:\n%s", h, patch)
			}
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "tab\tname"), []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		pf := filepath.Join(t.TempDir(), "p.diff")
		if err := os.WriteFile(pf, []byte(patch), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := run(t, dir, ws.env, "git", "apply", pf); r.code != 0 {
			t.Fatalf("git apply of ckpt's patch:\n%s\npatch:\n%s", r, patch)
		}
		for name, want := range map[string]string{"tab\tname": "two\n", "new\tfile": "new\n"} {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
				t.Errorf("after git apply, %q holds %q (%v), want %q", name, b, err, want)
			}
		}
	})
}
