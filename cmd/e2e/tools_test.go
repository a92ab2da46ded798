package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestToolWindows is CONTRACT semantic 8 and the tool-window acceptance
// list: `tool end` lists exactly the paths the window changed, through
// sed -i, rm, mv, gofmt -w and new files; an over-size file is in
// uncovered_paths; a change between windows belongs to none; and when two
// calls touch one file, the run's files[].checkpoint_id is the first call's
// pre_write.
func TestToolWindows(t *testing.T) {
	const unformatted = "package main\nfunc main(){\nx:=1\n_ = x}\n"
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m, "CKPT_MAX_FILE_SIZE=1KiB")
		ws.write("sed.txt", "name=old\n")
		ws.write("rm.txt", "remove me\n")
		ws.write("mv-from.txt", "move me\n")
		ws.write("fmt.go", unformatted)
		ws.write("big.bin", strings.Repeat("0123456789abcdef", 256)) // 4 KiB
		ws.write("two.txt", "v1\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")

		pre := map[string]string{}
		call := func(id, command string, act func(), wantChanges []string) toolEndJSON {
			t.Helper()
			var cp checkpointJSON
			ws.ckptJSON(&cp, "tool", "start", "--session", "s", "--run", "r1", "--call", id, "--command", command)
			if cp.Reason != "pre_write" || cp.CheckpointID == "" {
				t.Fatalf("tool start %s: got %+v, want a pre_write checkpoint", id, cp)
			}
			pre[id] = cp.CheckpointID
			act()
			var te toolEndJSON
			ws.ckptJSON(&te, "tool", "end", "--session", "s", "--run", "r1", "--call", id)
			if te.ToolCallID != id || te.CheckpointID != cp.CheckpointID || te.Command != command {
				t.Errorf("tool end %s: tool_call_id %q, checkpoint_id %q, command %q; want %q, %q, %q",
					id, te.ToolCallID, te.CheckpointID, te.Command, id, cp.CheckpointID, command)
			}
			assertChanges(t, "tool end "+id, te.Changes, wantChanges)
			return te
		}

		call("c-sed", "sed -i s/old/new/ sed.txt", func() { ws.exec("sed", "-i", "s/old/new/", "sed.txt") }, want("modified sed.txt"))
		call("c-rm", "rm rm.txt", func() { ws.exec("rm", "rm.txt") }, want("deleted rm.txt"))
		call("c-mv", "mv", func() { ws.exec("mv", "mv-from.txt", "mv-to.txt") }, want("deleted mv-from.txt", "added mv-to.txt"))
		call("c-gofmt", "gofmt -w fmt.go", func() { ws.exec(gofmtBin, "-w", "fmt.go") }, want("modified fmt.go"))
		call("c-new", "write new.txt", func() { ws.sh("echo new > new.txt") }, want("added new.txt"))
		call("c-noop", "true", func() { ws.exec("true") }, want())
		ws.write("between.txt", "written between two windows\n")
		te := call("c-big", "rewrite big.bin", func() { ws.write("big.bin", strings.Repeat("fedcba9876543210", 256)) }, want("modified big.bin"))
		if !slices.Contains(te.UncoveredPaths, "big.bin") {
			t.Errorf("tool end c-big: uncovered_paths %v, want big.bin (larger than max_file_size)", te.UncoveredPaths)
		}
		if slices.Contains(te.PreemptivelyCapturedPaths, "big.bin") {
			t.Errorf("tool end c-big: preemptively_captured_paths %v holds big.bin, whose content is not stored", te.PreemptivelyCapturedPaths)
		}
		call("c-two-1", "first edit", func() { ws.write("two.txt", "v2\n") }, want("modified two.txt"))
		call("c-two-2", "second edit", func() { ws.write("two.txt", "v3\n") }, want("modified two.txt"))

		var e runDiffJSON
		ws.ckptJSON(&e, "run", "end", "--session", "s", "--run", "r1")
		assertChanges(t, "run end", e.Files, want(
			"modified sed.txt", "deleted rm.txt", "deleted mv-from.txt", "added mv-to.txt", "modified fmt.go",
			"added new.txt", "added between.txt", "modified big.bin", "modified two.txt"))
		firstCall := map[string]string{
			"sed.txt": "c-sed", "rm.txt": "c-rm", "mv-from.txt": "c-mv", "mv-to.txt": "c-mv",
			"fmt.go": "c-gofmt", "new.txt": "c-new", "big.bin": "c-big", "two.txt": "c-two-1",
		}
		for _, f := range e.Files {
			if c, ok := firstCall[f.Path]; ok && f.CheckpointID != pre[c] {
				t.Errorf("run end: %s has checkpoint_id %s, want %s (the pre_write of %s, the first call that touched it)", f.Path, f.CheckpointID, pre[c], c)
			}
		}
	})
}

// TestExec is `ckpt exec`: a tool window around a command, which exits
// with the command's code and reports the window (stdout with --json,
// else stderr).
func TestExec(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")

		r := ws.ckptResult("exec", "--session", "s", "--run", "r1", "--call", "x1", "--json", "--",
			"sh", "-c", "echo hello > e1.txt; sed -i s/a/b/ a.txt; echo out; exit 7")
		if r.code != 7 {
			t.Errorf("exec of a command that exits 7: want exit 7, got\n%s", r)
		}
		var te toolEndJSON
		if err := decodeOne(r.stdout, &te); err != nil {
			t.Fatalf("exec --json: %v\n%s", err, r)
		}
		if te.ToolCallID != "x1" || te.CheckpointID == "" || !strings.Contains(te.Command, "sh") {
			t.Errorf("exec --json: tool_call_id %q, checkpoint_id %q, command %q", te.ToolCallID, te.CheckpointID, te.Command)
		}
		assertChanges(t, "exec --json", te.Changes, want("added e1.txt", "modified a.txt"))
		if !strings.Contains(r.stderr, "out") {
			t.Errorf("exec --json: the command's stdout should go to stderr, got\n%s", r)
		}

		r = ws.ckptResult("exec", "--session", "s", "--run", "r1", "--", "sh", "-c", "rm e1.txt; echo done")
		if r.code != 0 {
			t.Errorf("exec of a command that succeeds: want exit 0, got\n%s", r)
		}
		if !strings.Contains(r.stdout, "done") {
			t.Errorf("exec: the command's stdout should stay on stdout, got\n%s", r)
		}
		if !strings.Contains(r.stderr, "e1.txt") {
			t.Errorf("exec: the report (on stderr) should name e1.txt, got\n%s", r)
		}

		var e runDiffJSON
		ws.ckptJSON(&e, "run", "end", "--session", "s", "--run", "r1")
		assertChanges(t, "run end after exec", e.Files, want("modified a.txt"))
		if got := ws.read("a.txt"); got != "b\n" {
			t.Errorf("a.txt: %q, want %q", got, "b\n")
		}
		for _, f := range e.Files {
			if f.Path == "a.txt" && f.CheckpointID != te.CheckpointID {
				t.Errorf("run end: a.txt checkpoint_id %s, want exec x1's pre_write %s", f.CheckpointID, te.CheckpointID)
			}
		}
	})
}
