package remotetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type pullJSON struct {
	Name             string `json:"name"`
	FromCheckpointID string `json:"from_checkpoint_id"`
	CheckpointID     string `json:"checkpoint_id"`
	UpToDate         bool   `json:"up_to_date"`
	Checkpoints      int    `json:"checkpoints"`
	Changes          int    `json:"changes"`
	Blobs            int    `json:"blobs"`
	Continues        bool   `json:"continues"`
	Files            struct {
		GuardCheckpointID string `json:"guard_checkpoint_id"`
		Restored          []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"restored"`
	} `json:"files"`
}

// writer is machine A of a pull test: a workspace "proj" with the fixture,
// checkpointed and pushed.
func writer(t *testing.T, url string, extra ...string) (*machine, string, string) {
	a := newMachine(t, url, append([]string{"CKPT_REMOTE_NAME=proj"}, extra...)...)
	root := a.dir("proj")
	writeFiles(t, root, fixture)
	a.ok(root, "checkpoint", "-m", "first")
	a.ok(root, "push")
	var l logJSON
	a.json(root, &l, "log")
	return a, root, l.Checkpoints[0].CheckpointID
}

// moreOnA cuts two more checkpoints on A (edits, a deletion, a new file,
// a symlink retargeted, a mode change) and pushes them; it returns the tree
// at the first of them and their ids.
func moreOnA(t *testing.T, a *machine, root string) (map[string]entry, string, string) {
	writeFiles(t, root, map[string]string{"main.go": "package main // second\n", "new/added.txt": "added on a\n", "link": "->data/blob.bin"})
	os.Remove(filepath.Join(root, "data/empty"))
	a.ok(root, "checkpoint", "-m", "second")
	second := readTree(t, root)
	writeFiles(t, root, map[string]string{"main.go": "package main // third\n", "data/blob.bin*": "\x00now executable\xff"})
	os.RemoveAll(filepath.Join(root, "deep"))
	a.ok(root, "checkpoint", "-m", "third")
	a.ok(root, "push")
	var l logJSON
	a.json(root, &l, "log")
	return second, l.Checkpoints[1].CheckpointID, l.Checkpoints[0].CheckpointID
}

// Machine B clones, A goes on and pushes, B pulls: B has A's checkpoints,
// its files are A's newest checkpoint byte for byte, and log, diff, show
// and restore work on what was pulled.
func TestPullBringsNewCheckpoints(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	a, root, first := writer(t, url)

	b := newMachine(t, "")
	dst := filepath.Join(b.base, "clone")
	b.ok(b.base, "clone", url, "proj", dst)
	var p pullJSON
	b.json(dst, &p, "pull")
	if !p.UpToDate || p.CheckpointID != first || p.Checkpoints != 0 || !p.Continues {
		t.Errorf("pull with nothing new: %+v", p)
	}
	if out := b.ok(dst, "pull"); !strings.Contains(out, "up to date") {
		t.Errorf("pull with nothing new says:\n%s", out)
	}

	second, secondID, third := moreOnA(t, a, root)
	b.json(dst, &p, "pull")
	if p.UpToDate || p.FromCheckpointID != first || p.CheckpointID != third || p.Checkpoints != 2 || p.Changes == 0 || p.Blobs == 0 {
		t.Errorf("pull: %+v; want %s..%s, 2 checkpoints", p, first, third)
	}
	if p.Files.GuardCheckpointID != first || len(p.Files.Restored) == 0 {
		t.Errorf("pull wrote %+v; want the guard %s and the changed paths", p.Files, first)
	}
	sameTree(t, readTree(t, dst), readTree(t, root))
	if out := b.ok(dst, "status"); !strings.Contains(out, "No drift") {
		t.Errorf("status after a pull:\n%s", out)
	}
	var bl logJSON
	b.json(dst, &bl, "log")
	if len(bl.Checkpoints) != 4 || bl.Checkpoints[0].CheckpointID != third || bl.Checkpoints[1].CheckpointID != secondID {
		t.Fatalf("log after pull: %+v", bl.Checkpoints)
	}
	if out := b.ok(dst, "diff", first, third); !strings.Contains(out, "main.go") || !strings.Contains(out, "new/added.txt") || !strings.Contains(out, "deep/a/b/c/d.txt") {
		t.Errorf("diff %s %s after pull:\n%s", first, third, out)
	}
	if out := b.ok(dst, "show", secondID); !strings.Contains(out, "second") {
		t.Errorf("show %s after pull:\n%s", secondID, out)
	}
	b.ok(dst, "restore", secondID, "--yes", "--exact")
	sameTree(t, readTree(t, dst), second)

	b.ok(dst, "restore", third, "--yes", "--exact")
	sameTree(t, readTree(t, dst), readTree(t, root))

	// A clone of an older checkpoint, in the middle of a segment, pulls
	// the rest of that segment.
	older := filepath.Join(b.base, "older")
	b.ok(b.base, "clone", url, "proj@"+secondID, older)
	sameTree(t, readTree(t, older), second)
	b.json(older, &p, "pull")
	if p.FromCheckpointID != secondID || p.CheckpointID != third || p.Checkpoints != 1 || !p.Continues {
		t.Errorf("pull into a clone of %s: %+v", secondID, p)
	}
	sameTree(t, readTree(t, older), readTree(t, root))
	if out := b.ok(older, "diff", secondID, third); !strings.Contains(out, "data/blob.bin") {
		t.Errorf("diff %s %s after pull:\n%s", secondID, third, out)
	}
}

// Undo after a pull gives the files back as they were; the workspace then
// has history of its own, and a pull of more is refused, changing nothing.
// So is a pull over an edit, and one into a workspace that shares no
// history with the name.
func TestPullRefusesDivergedHistory(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	a, root, first := writer(t, url)
	firstTree := readTree(t, root)

	b := newMachine(t, "")
	undone := filepath.Join(b.base, "undone")
	edited := filepath.Join(b.base, "edited")
	b.ok(b.base, "clone", url, "proj", undone)
	b.ok(b.base, "clone", url, "proj", edited)
	writeFiles(t, edited, map[string]string{"main.go": "package main // edited on b\n"})

	_, _, third := moreOnA(t, a, root)
	var p pullJSON
	b.json(undone, &p, "pull")
	if p.CheckpointID != third {
		t.Fatalf("pull: %+v", p)
	}
	b.ok(undone, "undo", "--yes")
	sameTree(t, readTree(t, undone), firstTree)

	moreOnA(t, a, root) // a fourth and fifth checkpoint
	for _, dir := range []string{undone, edited} {
		before, beforeLog := readTree(t, dir), b.ok(dir, "log")
		r := b.ckpt(dir, nil, "pull")
		if r.code != 1 || !strings.Contains(r.stderr, "history of its own") || !strings.Contains(r.stderr, "fast-forwards") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("pull into a diverged workspace: %s", r)
		}
		sameTree(t, readTree(t, dir), before)
		if after := b.ok(dir, "log"); after != beforeLog {
			t.Errorf("a refused pull changed the log:\n%s\nnow:\n%s", beforeLog, after)
		}
	}
	if got := readTree(t, edited)["main.go"].Content; got != "package main // edited on b\n" {
		t.Errorf("a refused pull changed the edit: %q", got)
	}

	// A workspace of its own under the same name shares nothing with it.
	c := newMachine(t, url, "CKPT_REMOTE_NAME=proj")
	own := c.dir("own")
	writeFiles(t, own, map[string]string{"x": "x\n"})
	c.ok(own, "checkpoint")
	if r := c.ckpt(own, nil, "pull"); r.code != 1 || !strings.Contains(r.stderr, "no history in common") {
		t.Errorf("pull into an unrelated workspace: %s", r)
	}
	_ = first
}

// Bad input is exit 2 and changes nothing; with a daemon serving the
// workspace, pull is refused (exit 1) and the daemon keeps it.
func TestPullBadInputAndDaemon(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	writer(t, url)
	b := newMachine(t, "")
	dst := filepath.Join(b.base, "clone")
	b.ok(b.base, "clone", url, "proj", dst)
	plain := b.dir("plain")
	writeFiles(t, plain, map[string]string{"x": "x\n"})
	for _, tc := range []struct {
		dir  string
		env  []string
		args []string
		want string
	}{
		{plain, nil, []string{"pull"}, "no remote configured"},
		{dst, []string{"CKPT_REMOTE_NAME=nosuch"}, []string{"pull"}, `no workspace "nosuch"`},
		{dst, []string{"CKPT_REMOTE_NAME=bad/name"}, []string{"pull"}, "remote_name"},
		{dst, nil, []string{"pull", "--bogus"}, "unknown flag"},
		{dst, nil, []string{"pull", "extra"}, ""},
		{dst, []string{"CKPT_REMOTE=http://nope"}, []string{"pull"}, "s3://"},
	} {
		before := readTree(t, tc.dir)
		r := b.ckpt(tc.dir, tc.env, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("want exit 2 with %q: %s", tc.want, r)
		}
		sameTree(t, readTree(t, tc.dir), before)
	}

	b.startDaemon(dst)
	r := b.ckpt(dst, nil, "pull")
	if r.code != 1 || !strings.Contains(r.stderr, "daemon serves") || !strings.Contains(r.stderr, "workspaces forget") {
		t.Errorf("pull with a daemon serving the workspace: %s", r)
	}
	if out := b.ok(dst, "status"); !strings.Contains(out, "No drift") {
		t.Errorf("status after a refused pull:\n%s", out)
	}
	// No remote is bad input first, whoever serves the workspace.
	b.ok(plain, "status")
	if r := b.ckpt(plain, nil, "pull"); r.code != 2 || !strings.Contains(r.stderr, "no remote configured") {
		t.Errorf("pull of a workspace with no remote, with a daemon running: %s", r)
	}
}

// An encrypted remote pulls with its key, and not without it.
func TestPullEncrypted(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	keyDir, _ := os.MkdirTemp("", "ckpt-key-")
	t.Cleanup(func() { os.RemoveAll(keyDir) })
	key := filepath.Join(keyDir, "key")
	os.WriteFile(key, []byte(strings.Repeat("ef", 32)), 0o600)
	a, root, _ := writer(t, url, "CKPT_REMOTE_KEY_FILE="+key)
	b := newMachine(t, "", "CKPT_REMOTE_KEY_FILE="+key)
	dst := filepath.Join(b.base, "clone")
	b.ok(b.base, "clone", url, "proj", dst)
	_, _, third := moreOnA(t, a, root)
	r := b.ckpt(dst, []string{"CKPT_REMOTE_KEY_FILE="}, "pull")
	if r.code != 2 || !strings.Contains(r.stderr, "encrypted") {
		t.Errorf("pull without the key: %s", r)
	}
	var p pullJSON
	b.json(dst, &p, "pull")
	if p.CheckpointID != third || p.Checkpoints != 2 {
		t.Errorf("encrypted pull: %+v", p)
	}
	sameTree(t, readTree(t, dst), readTree(t, root))
}
