package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/plural"
)

// emit prints the answer: exactly one JSON object with --json, else text.
// It first lets go of the workspace: an embedded command holds the store's
// lock while it is open, and a slow reader of the output (a pager, a full
// pipe) must not keep every other ckpt command on the workspace waiting.
func (g *globalOptions) emit(v any, text func(w io.Writer)) error {
	g.close()
	if g.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	w := bufio.NewWriter(os.Stdout)
	text(w)
	return w.Flush()
}

// emitJSON is emit for an answer already encoded (encoding/json's compact
// form, as the daemon answers).
func (g *globalOptions) emitJSON(compact []byte) error {
	g.close()
	return writeIndented(os.Stdout, compact)
}

// writeIndented writes compact indented as emit's encoder indents the
// value it was encoded from.
func writeIndented(w io.Writer, compact []byte) error {
	var out bytes.Buffer
	out.Grow(2 * len(compact))
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return fmt.Errorf("malformed answer from ckptd: %w", err)
	}
	_, err := w.Write(out.Bytes())
	return err
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// progressBar reports a long import on a terminal; silent otherwise. Only
// the engine imports, so only it draws.
func progressBar(g *globalOptions) func(done, total int) {
	if g.json || g.engine == nil {
		return nil
	}
	return g.engine.ImportProgress(g.root)
}

// confirm asks on a terminal; elsewhere the caller decided already.
// Ctrl-C while it waits for the answer (ctx is cancelled by SIGINT) is no:
// it returns ctx's error at once, and ckpt exits as interrupted.
func confirm(ctx context.Context, question string) (bool, error) {
	handleSignalsNow()
	fmt.Fprintf(os.Stderr, "%s [y/N] ", question)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		line = strings.ToLower(strings.TrimSpace(line))
		return line == "y" || line == "yes", nil
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr)
		return false, ctx.Err()
	}
}

func writeChanges(w io.Writer, indent string, changes []api.Change) {
	for _, c := range changes {
		extra := ""
		if c.CheckpointID != "" {
			extra = "  (before: " + c.CheckpointID + ")"
		}
		if len(c.SharedWith) > 0 {
			extra += "  (shared with " + sharedWith(c.SharedWith) + ")"
		}
		fmt.Fprintf(w, "%s%-9s %s%s\n", indent, c.Kind+":", c.Path, extra)
	}
}

// sharedWith names the other runs and tool calls open while a path
// changed: "s2/r2, s1/r1 call c1".
func sharedWith(ps []api.Party) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.SessionID + "/" + p.RunID
		if p.ToolCallID != "" {
			names[i] += " call " + p.ToolCallID
		}
	}
	return strings.Join(names, ", ")
}

func writeCheckpoint(w io.Writer, cp api.Checkpoint) {
	fmt.Fprintf(w, "%s  %s  %-20s", cp.CheckpointID, cp.CreatedAt.Local().Format(time.DateTime), cp.Reason)
	if cp.SessionID != "" || cp.RunID != "" {
		fmt.Fprintf(w, "  run %s/%s", cp.SessionID, cp.RunID)
	}
	if cp.ToolCallID != "" {
		fmt.Fprintf(w, " call %s", cp.ToolCallID)
	}
	if cp.Message != "" {
		fmt.Fprintf(w, "  %s", cp.Message)
	}
	fmt.Fprintln(w)
}

func ago(t time.Time) string {
	d := time.Since(t).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format(time.DateOnly)
}

// count is "1 path", "2 paths".
func count(n int, noun string) string { return plural.Count(n, noun) }
