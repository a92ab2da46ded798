package remotetest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

type logJSON struct {
	Checkpoints []struct {
		CheckpointID string `json:"checkpoint_id"`
		Reason       string `json:"reason"`
		Message      string `json:"message"`
	} `json:"checkpoints"`
	Replication *struct {
		ReplicatedCheckpointID string `json:"replicated_checkpoint_id"`
		PendingCheckpoints     int    `json:"pending_checkpoints"`
		PendingChanges         uint64 `json:"pending_changes"`
		LastError              string `json:"last_error"`
	} `json:"replication"`
}

// fixture is a tree with what "exactly" must cover: binary bytes, an empty
// file, an executable, a symlink (and a dangling one), nested directories.
var fixture = map[string]string{
	"main.go":          "package main\n\nfunc main() {}\n",
	"bin/run.sh*":      "#!/bin/sh\necho hi\n",
	"data/blob.bin":    "\x00\x01\x02\xff\xfe binary\x00",
	"data/empty":       "",
	"deep/a/b/c/d.txt": "deep\n",
	"link":             "->main.go",
	"dangling":         "->nowhere/at/all",
	"sp ace/ünï.txt":   "unicode name\n",
}

// Push (embedded) or the daemon's replication, then a clone on another
// machine is byte for byte the checkpoint, and its history goes on there.
func TestCloneIsExactAndContinuesHistory(t *testing.T) {
	needWeed(t)
	for _, mode := range []string{"embedded", "daemon"} {
		t.Run(mode, func(t *testing.T) {
			_, url := bucketURL(t)
			a := newMachine(t, url, "CKPT_REMOTE_NAME=proj")
			root := a.dir("proj")
			writeFiles(t, root, fixture)
			a.ok(root, "status")
			if mode == "daemon" {
				a.startDaemon(root)
			}
			a.ok(root, "checkpoint", "-m", "first")
			writeFiles(t, root, map[string]string{"main.go": "package main\n\nfunc main() { println(1) }\n", "new.txt": "new\n"})
			a.ok(root, "checkpoint", "-m", "second")
			a.ok(root, "push")
			var l logJSON
			a.json(root, &l, "log")
			if l.Replication == nil || l.Replication.ReplicatedCheckpointID != l.Checkpoints[0].CheckpointID || l.Replication.PendingCheckpoints != 0 {
				t.Fatalf("after push, log says %+v; want the newest checkpoint %s replicated", l.Replication, l.Checkpoints[0].CheckpointID)
			}
			want := readTree(t, root)
			first := l.Checkpoints[1].CheckpointID

			b := newMachine(t, "")
			dst := filepath.Join(b.base, "clone")
			var res struct {
				CheckpointID string `json:"checkpoint_id"`
				Files        int    `json:"files"`
			}
			b.json(b.base, &res, "clone", url, "proj", dst)
			if res.CheckpointID != l.Checkpoints[0].CheckpointID {
				t.Errorf("clone took %s, want the newest, %s", res.CheckpointID, l.Checkpoints[0].CheckpointID)
			}
			sameTree(t, readTree(t, dst), want)

			// The history came along: log, diff and history reach back.
			var bl logJSON
			b.json(dst, &bl, "log")
			if len(bl.Checkpoints) != len(l.Checkpoints) {
				t.Fatalf("clone's log has %d checkpoints, want %d", len(bl.Checkpoints), len(l.Checkpoints))
			}
			if out := b.ok(dst, "diff", first, res.CheckpointID); !strings.Contains(out, "main.go") || !strings.Contains(out, "new.txt") {
				t.Errorf("diff %s %s on the clone:\n%s", first, res.CheckpointID, out)
			}
			if out := b.ok(dst, "status"); !strings.Contains(out, "No drift") {
				t.Errorf("a fresh clone has drift:\n%s", out)
			}
			// It goes on: a change, a checkpoint, a diff, a restore into
			// the replicated past.
			writeFiles(t, dst, map[string]string{"main.go": "package main // edited on b\n"})
			b.ok(dst, "checkpoint", "-m", "on b")
			if out := b.ok(dst, "history", "main.go"); strings.Count(out, "\n") < 3 {
				t.Errorf("history of main.go on the clone has too few versions:\n%s", out)
			}
			b.ok(dst, "restore", first, "--yes", "--exact")
			wantFirst := map[string]entry{}
			for p, e := range want {
				if p != "new.txt" {
					wantFirst[p] = e
				}
			}
			wantFirst["main.go"] = entry{Mode: 0o644, Content: fixture["main.go"]}
			sameTree(t, readTree(t, dst), wantFirst)

			// An older checkpoint clones too, and its history stops there.
			dst2 := filepath.Join(b.base, "clone2")
			b.ok(b.base, "clone", url, "proj@"+first, dst2)
			var l2 logJSON
			b.json(dst2, &l2, "log")
			if len(l2.Checkpoints) != len(l.Checkpoints)-1 || l2.Checkpoints[0].CheckpointID != first {
				t.Errorf("clone of %s has log %+v", first, l2.Checkpoints)
			}
			if data, _ := json.Marshal(readTree(t, dst2)["main.go"]); !strings.Contains(string(data), "func main() {}") {
				t.Errorf("clone of %s: main.go is %s", first, data)
			}
		})
	}
}
