package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type historyJSON struct {
	Path     string `json:"path"`
	Versions []struct {
		Seq          uint64 `json:"seq"`
		At           string `json:"at"`
		Kind         string `json:"kind"`
		By           string `json:"by"`
		SessionID    string `json:"session_id"`
		RunID        string `json:"run_id"`
		ToolCallID   string `json:"tool_call_id"`
		CheckpointID string `json:"checkpoint_id"`
		Ref          string `json:"ref"`
		Type         string `json:"type"`
		Size         int64  `json:"size"`
		Mode         string `json:"mode"`
	} `json:"versions"`
}

// TestHistory is `ckpt history PATH`: every version of a file written by
// the person, a tool call, a run outside its tool calls, the person again
// and a restore, newest first with the right attribution; each version's
// reference (a checkpoint, or @SEQ when no checkpoint holds it) brings its
// exact bytes back, and undo after that is exact.
func TestHistory(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("f.txt", "v0 by the person\n")
		ws.write("other.txt", "other\n")
		ws.start()
		var initial checkpointJSON
		ws.ckptJSON(&initial, "checkpoint")
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.ckptOK("exec", "--session", "s", "--run", "r1", "--call", "t1", "--", "sh", "-c", "printf 'v1 by t1\\n' > f.txt")
		ws.write("f.txt", "v2 by r1, in no checkpoint\n")
		ws.status() // captured as its own version
		ws.write("f.txt", "v3 by r1\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
		ws.sh("printf 'v4 by the person\\n' > f.tmp && chmod 755 f.tmp && mv f.tmp f.txt")
		ws.ckptOK("restore", initial.CheckpointID, "f.txt", "--exact", "--yes")
		contents := []string{"v0 by the person\n", "v4 by the person\n", "v3 by r1\n", "v2 by r1, in no checkpoint\n", "v1 by t1\n", "v0 by the person\n"}

		var h historyJSON
		ws.ckptJSON(&h, "history", "f.txt")
		var got []string
		for _, v := range h.Versions {
			got = append(got, v.Kind+" "+v.By+":"+v.SessionID+"/"+v.RunID+"/"+v.ToolCallID)
		}
		wantBy := []string{
			"modified restore://", "modified person://", "modified run:s/r1/", "modified run:s/r1/",
			"modified tool:s/r1/t1", "added person://",
		}
		if h.Path != "f.txt" || !slices.Equal(got, wantBy) {
			t.Fatalf("history f.txt: path %q, versions\n  got  %s\n  want %s", h.Path, fmtList(got), fmtList(wantBy))
		}
		for i, v := range h.Versions {
			if i > 0 && v.Seq >= h.Versions[i-1].Seq {
				t.Errorf("version %d: seq %d not below the newer one's %d", i, v.Seq, h.Versions[i-1].Seq)
			}
			if v.At == "" || v.Type != "file" || v.Size != int64(len(contents[i])) || v.Ref == "" {
				t.Errorf("version %d: %+v; want at, type file, size %d, ref", i, v, len(contents[i]))
			}
		}
		if h.Versions[0].Mode != "0644" || h.Versions[1].Mode != "0755" || h.Versions[2].Mode != "0644" {
			t.Errorf("modes newest first: %s %s %s, want 0644 0755 0644", h.Versions[0].Mode, h.Versions[1].Mode, h.Versions[2].Mode)
		}
		if h.Versions[3].CheckpointID != "" || !strings.HasPrefix(h.Versions[3].Ref, "@") {
			t.Errorf("v2 lived between checkpoints: checkpoint_id %q, ref %q; want none and @SEQ", h.Versions[3].CheckpointID, h.Versions[3].Ref)
		}
		if h.Versions[5].CheckpointID == "" {
			t.Errorf("v0 is in the initial checkpoint, but history names none")
		}

		for i, v := range h.Versions {
			refs := []string{v.Ref}
			if v.CheckpointID != "" {
				refs = append(refs, v.CheckpointID)
			}
			for _, ref := range refs {
				beforeRestore := ws.tree()
				var res restoreJSON
				ws.ckptJSON(&res, "restore", ref, "f.txt", "--exact", "--yes")
				if got := ws.read("f.txt"); got != contents[i] {
					t.Errorf("restore %s f.txt (version %d): %q, want %q", ref, i, got, contents[i])
				}
				if o := ws.read("other.txt"); o != "other\n" {
					t.Errorf("restore %s f.txt changed other.txt: %q", ref, o)
				}
				if res.GuardCheckpointID == "" {
					continue // it wrote nothing, so there is nothing to undo
				}
				ws.ckptOK("undo", "--yes")
				assertTree(t, "after undo of restore "+ref, beforeRestore, ws.tree())
			}
		}

		var all, two historyJSON
		ws.ckptJSON(&all, "history", "f.txt")
		if ws.ckptJSON(&two, "history", "f.txt", "-n", "2"); len(two.Versions) != 2 || two.Versions[1].Seq != all.Versions[1].Seq {
			t.Errorf("history -n 2: %d versions, want the newest 2 of %d", len(two.Versions), len(all.Versions))
		}
		ws.rm("other.txt")
		var gone historyJSON
		ws.ckptJSON(&gone, "history", "other.txt")
		if len(gone.Versions) != 2 || gone.Versions[0].Kind != "deleted" || gone.Versions[0].Type != "" || gone.Versions[0].By != "person" {
			t.Errorf("history of a deleted file: %+v", gone.Versions)
		}
	})
}

// TestHistoryBadInput: a path outside the workspace, one never recorded,
// the root, version references that are malformed, beyond the journal or
// without a path exit 2 and change nothing.
func TestHistoryBadInput(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write(filepath.Join("..", "outside", "file"), "outside\n")
		ws.start()
		ws.write("a.txt", "a, changed\n")
		cases := []struct {
			name string
			args []string
		}{
			{"outside", []string{"history", "../outside/file"}},
			{"absolute outside", []string{"history", filepath.Join(ws.outside, "file")}},
			{"never recorded", []string{"history", "nope.txt"}},
			{"the root", []string{"history", "."}},
			{"no path", []string{"history"}},
			{"two paths", []string{"history", "a.txt", "a.txt"}},
			{"negative -n", []string{"history", "a.txt", "-n", "-1"}},
			{"restore @ without a path", []string{"restore", "@1", "--yes"}},
			{"restore @0", []string{"restore", "@0", "a.txt", "--yes"}},
			{"restore @ beyond the journal", []string{"restore", "@999999", "a.txt", "--yes"}},
			{"restore @ malformed", []string{"restore", "@1x", "a.txt", "--yes"}},
			{"restore @ with a leading zero", []string{"restore", "@01", "a.txt", "--yes"}},
		}
		for _, tc := range cases {
			parent := ws.t
			t.Run(tc.name, func(t *testing.T) {
				ws.t = t
				defer func() { ws.t = parent }()
				ws.assertBadInput(tc.args...)
			})
		}
	})
}

// TestWindowOfUnstartedRun: `ckpt exec` for a run that was never started
// attributes what its command wrote to the call, and leaves no run
// active behind it: the person's later edit is the person's, not the run's.
func TestWindowOfUnstartedRun(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("f.txt", "v0\n")
		ws.start()
		ws.ckptOK("exec", "--session", "s", "--run", "never", "--call", "t1", "--", "sh", "-c", "printf 'v1 by t1\\n' > f.txt")
		ws.write("f.txt", "v2 by the person\n")
		var h historyJSON
		ws.ckptJSON(&h, "history", "f.txt")
		var got []string
		for _, v := range h.Versions {
			got = append(got, v.Kind+" "+v.By+":"+v.SessionID+"/"+v.RunID+"/"+v.ToolCallID)
		}
		want := []string{"modified person://", "modified tool:s/never/t1", "added person://"}
		if !slices.Equal(got, want) {
			t.Fatalf("history f.txt:\n  got  %s\n  want %s", fmtList(got), fmtList(want))
		}

		// A run started while its window is open stays open after it.
		ws.ckptOK("tool", "start", "--session", "s", "--run", "later", "--call", "t2")
		ws.ckptOK("run", "start", "--session", "s", "--run", "later")
		ws.write("g.txt", "by t2\n")
		ws.ckptOK("tool", "end", "--session", "s", "--run", "later", "--call", "t2")
		ws.write("g.txt", "by the run\n")
		ws.ckptJSON(&h, "history", "g.txt")
		got = got[:0]
		for _, v := range h.Versions {
			got = append(got, v.By+":"+v.RunID+"/"+v.ToolCallID)
		}
		want = []string{"run:later/", "tool:later/t2"}
		if !slices.Equal(got, want) {
			t.Fatalf("history g.txt:\n  got  %s\n  want %s", fmtList(got), fmtList(want))
		}
	})
}
