// Package progress draws the progress of long work (a workspace's first
// import) on a terminal, for both binaries. It draws on stderr only, and
// nothing when stderr is not a terminal: stdout carries the answer.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// IsTerminal says whether f is a terminal.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Import returns a progress callback that draws "importing WHAT", a bar and
// the done/total count of files on stderr, or nil when stderr is not a terminal.
func Import(what string) func(done, total int) {
	if !IsTerminal(os.Stderr) {
		return nil
	}
	return importBar(os.Stderr, what)
}

// importBar draws on w whatever it is. The bar is made at the first call,
// when the total is known; it ends its line when done reaches total.
func importBar(w io.Writer, what string) func(done, total int) {
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("importing "+what),
				progressbar.OptionSetWidth(30),
				progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
			)
		} else if int64(total) != bar.GetMax64() {
			bar.ChangeMax(total)
		}
		bar.Set(done)
	}
}
