package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// waitForImport says, on stderr, that the command waits for the daemon's
// first import of the workspace (every command but status needs the
// complete baseline; status answers at once with the import's progress).
func (g *globalOptions) waitForImport(p *api.ImportProgress) {
	if g.answersWhileImporting {
		return
	}
	fmt.Fprintf(os.Stderr, "ckpt: the daemon is importing %s for the first time (%s); waiting for it to finish\n", g.root, importProgressText(p))
}

// importProgressText is how far an import is, in words.
func importProgressText(p *api.ImportProgress) string {
	since := time.Since(p.StartedAt).Round(time.Second)
	if p.Phase == api.ImportStoring && p.FilesTotal > 0 {
		return fmt.Sprintf("%d of %d files stored, %d%%, started %s ago", p.FilesDone, p.FilesTotal, p.FilesDone*100/p.FilesTotal, since)
	}
	return fmt.Sprintf("listing the files: %d found so far, %d stored, started %s ago", p.FilesTotal, p.FilesDone, since)
}

// writeImporting is ckpt status while the daemon's first import runs.
func writeImporting(w io.Writer, s api.Status) {
	fmt.Fprintf(w, "Workspace %s\n", s.Workspace)
	fmt.Fprintf(w, "Daemon running (pid %d): importing the workspace for the first time: %s\n", s.Daemon.PID, importProgressText(s.Importing))
	fmt.Fprintln(w, "Changes made meanwhile are captured after it. Other commands wait for the import to finish.")
}

// quoteDirs names the topmost unwatched directories.
func quoteDirs(dirs []string) string {
	s := ""
	for i, d := range dirs {
		if i > 0 {
			s += ", "
		}
		if d == "" {
			d = "."
		}
		s += api.QuotePath(d)
	}
	return s
}
