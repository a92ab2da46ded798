package e2e

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRestoreReplacesFiles: a restore puts each file's content in place
// by a rename of a whole new file, never by writing over the old one. A
// process that has the file open (or mapped) keeps reading the old content
// whole, and a name of the same file outside the workspace is never
// written through.
func TestRestoreReplacesFiles(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("linked", "at the checkpoint\n")
		ws.write("open", "open at the checkpoint\n")
		outside := filepath.Join(t.TempDir(), "outside")
		if err := os.Link(ws.path("linked"), outside); err != nil {
			t.Fatal(err)
		}
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint", "-m", "base")
		if err := os.WriteFile(ws.path("linked"), []byte("edited, both names see it\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ws.write("open", "edited while a reader has it open\n")
		reader, err := os.Open(ws.path("open"))
		if err != nil {
			t.Fatal(err)
		}
		defer reader.Close()

		var r restoreJSON
		ws.ckptJSON(&r, "restore", cp.CheckpointID, "--exact", "--yes")
		assertChanges(t, "restore", r.Restored, want("modified linked", "modified open"))
		if got := ws.read("linked"); got != "at the checkpoint\n" {
			t.Errorf("linked after the restore: %q", got)
		}
		if got, err := os.ReadFile(outside); err != nil || string(got) != "edited, both names see it\n" {
			t.Errorf("the name outside the workspace after the restore: %q (%v), want it untouched", got, err)
		}
		if got := ws.read("open"); got != "open at the checkpoint\n" {
			t.Errorf("open after the restore: %q", got)
		}
		if got, err := io.ReadAll(reader); err != nil || string(got) != "edited while a reader has it open\n" {
			t.Errorf("the reader that had the file open reads %q (%v), want the old content whole", got, err)
		}
		assertChanges(t, "status after the restore", ws.status().Changes, want())
	})
}
