package e2e

import (
	"maps"
	"strings"
	"testing"
)

// TestRevertRefusesLikeRestore: a revert that refuses a path (one behind
// the person's symlink, reverted with --force) answers as a restore does:
// the path in refused, a top-level error in the one JSON object, one line
// on stderr, exit 1, and in the text a "refused" section, not the
// conflicts'.
func TestRevertRefusesLikeRestore(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		_, atID := setupRefusal(ws)
		before, outside := ws.tree(), ws.outsideTree()
		args := []string{"revert", "--session", "s", "--run", "r1", "--force"}

		dry := ws.ckptResult(append(args, "--dry-run")...)
		if dry.code != 1 || !strings.Contains(dry.stdout, "refused 1 path (left as it is):") || !strings.Contains(dry.stdout, "d/f") {
			t.Errorf("revert --force --dry-run with a refused path: want exit 1 and d/f listed as refused:\n%s", dry)
		}
		if strings.Contains(dry.stdout, "alone (conflicts") {
			t.Errorf("revert --force --dry-run: a refused path is not a conflict left alone:\n%s", dry)
		}
		assertTree(t, "after revert --dry-run", before, ws.tree())

		text := ws.ckptResult(append(args, "--dry-run", "--yes")...)
		if text.code != 1 || len(strings.Split(strings.TrimRight(text.stderr, "\n"), "\n")) != 1 || !strings.Contains(text.stderr, "d/f") {
			t.Errorf("revert --dry-run with a refused path: want exit 1 and one line on stderr naming d/f:\n%s", text)
		}

		r := ws.ckptResult(append(args, "--yes", "--json")...)
		var res struct {
			restoreOutcomeJSON
			Conflicts []struct {
				Path string `json:"path"`
			} `json:"conflicts"`
		}
		if err := decodeOne(r.stdout, &res); err != nil {
			t.Fatalf("revert with a refused path: %v\n%s", err, r)
		}
		if r.code != 1 {
			t.Errorf("revert with a refused path: want exit 1, got\n%s", r)
		}
		if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, "d/f") {
			t.Errorf("revert with a refused path: want one line on stderr naming d/f:\n%s", r)
		}
		if len(res.Refused) != 1 || res.Refused[0].Path != "d/f" || !strings.Contains(res.Refused[0].Why, "symlink d") {
			t.Errorf("revert: refused %+v; want d/f, because of the symlink d", res.Refused)
		}
		if !strings.Contains(res.Error, "d/f") || res.GuardCheckpointID == "" {
			t.Errorf("revert with a refused path: error %q, guard %q; want both", res.Error, res.GuardCheckpointID)
		}
		var restored []string
		for _, c := range res.Restored {
			restored = append(restored, c.Kind+" "+c.Path)
		}
		if got := want(restored...); strings.Join(got, ",") != "modified a.txt,modified keep/g" {
			t.Errorf("revert with a refused path: restored %s, want a.txt and keep/g", fmtList(got))
		}
		wantTree := maps.Clone(before)
		wantTree["a.txt"], wantTree["keep/g"] = atID["a.txt"], atID["keep/g"]
		assertTree(t, "after a revert that refused d/f", wantTree, ws.tree())
		assertTree(t, "outside the workspace", outside, ws.outsideTree())
	})
}

// TestRevertNothingToWrite: a revert that writes nothing says so, as a
// restore does, and cuts no guard.
func TestRevertNothingToWrite(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("x.txt", "x0\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r")
		ws.write("x.txt", "x1 by the run\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r")
		ws.ckptOK("revert", "--session", "s", "--run", "r", "--yes")
		n := ws.logLen()
		out := ws.ckptOK("revert", "--session", "s", "--run", "r", "--yes")
		if !strings.Contains(out, "reverted 0 paths") || !strings.Contains(out, "nothing to write, so no guard checkpoint was cut") {
			t.Errorf("a revert with nothing to write: want it said so:\n%s", out)
		}
		if got := ws.logLen(); got != n {
			t.Errorf("a revert with nothing to write cut a checkpoint: %d checkpoints, want %d", got, n)
		}
	})
}
