package remotetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type replicationJSON struct {
	Replication *struct {
		Remote                 string `json:"remote"`
		Workspace              string `json:"workspace"`
		ReplicatedCheckpointID string `json:"replicated_checkpoint_id"`
		PendingCheckpoints     int    `json:"pending_checkpoints"`
	} `json:"replication"`
}

// remoteCheckpoints is the checkpoints workspace name has in the remote
// at url, as another machine lists them.
func remoteCheckpoints(t *testing.T, url, name string) []string {
	t.Helper()
	var ls struct {
		Workspaces []struct {
			Name        string `json:"name"`
			Checkpoints []struct {
				CheckpointID string `json:"checkpoint_id"`
			} `json:"checkpoints"`
		} `json:"workspaces"`
	}
	b := newMachine(t, url)
	b.json(b.base, &ls, "remote", "ls")
	var ids []string
	for _, w := range ls.Workspaces {
		if w.Name == name {
			for _, cp := range w.Checkpoints {
				ids = append(ids, cp.CheckpointID)
			}
		}
	}
	return ids
}

// The daemon's replication follows the user's configuration file while it
// runs: a new remote and name restart it there, and a removed remote
// stops it, which status and the log say.
func TestReplicationFollowsConfigReload(t *testing.T) {
	needWeed(t)
	_, urlA := bucketURL(t)
	_, urlB := bucketURL(t)
	a := newMachine(t, "")
	userFile := filepath.Join(a.base, "home", ".config", "ckpt", "ckpt.yaml")
	setConfig := func(yaml string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(userFile), 0o755)
		tmp := userFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, userFile); err != nil {
			t.Fatal(err)
		}
	}
	setConfig("remote: " + urlA + "\nremote_name: alpha\n")
	root := a.dir("proj")
	writeFiles(t, root, fixture)
	a.startDaemon(root)
	a.ok(root, "checkpoint", "-m", "first")
	a.ok(root, "push", "--timeout", "1m")
	if got := remoteCheckpoints(t, urlA, "alpha"); len(got) == 0 {
		t.Fatalf("%s has no checkpoint of alpha", urlA)
	}

	// Another remote, another name: the daemon replicates there, without
	// a restart.
	setConfig("remote: " + urlB + "\nremote_name: beta\n")
	// The file is polled (every 2 s): what is cut before the daemon has
	// seen the change still goes where the old settings said.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(a.daemonLog(), "replication restarted with the new settings: remote "+urlB) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon never took the new remote:\n%s", a.daemonLog())
		}
		time.Sleep(100 * time.Millisecond)
	}
	writeFiles(t, root, map[string]string{"main.go": "package main // two\n"})
	a.ok(root, "checkpoint", "-m", "second")
	var l logJSON
	a.json(root, &l, "log")
	newest := l.Checkpoints[0].CheckpointID
	deadline = time.Now().Add(45 * time.Second)
	var s replicationJSON
	for {
		s = replicationJSON{}
		a.json(root, &s, "status")
		if r := s.Replication; r != nil && r.Remote == urlB && r.Workspace == "beta" && r.ReplicatedCheckpointID == newest {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon never replicated %s to %s as beta; status %+v\ndaemon log:\n%s", newest, urlB, s.Replication, a.daemonLog())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got := remoteCheckpoints(t, urlB, "beta"); len(got) != len(l.Checkpoints) {
		t.Errorf("%s has %d checkpoints of beta, want %d", urlB, len(got), len(l.Checkpoints))
	}
	onA := remoteCheckpoints(t, urlA, "alpha")
	for _, id := range onA {
		if id == newest {
			t.Errorf("%s got %s after the remote changed", urlA, newest)
		}
	}

	// No remote: replication stops, and says so.
	setConfig("retention: 30d\n")
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(a.daemonLog(), "replication to "+urlB+" stopped: no remote is configured") {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon never said replication stopped; its log:\n%s", a.daemonLog())
		}
		time.Sleep(200 * time.Millisecond)
	}
	s = replicationJSON{}
	a.json(root, &s, "status")
	if s.Replication != nil {
		t.Errorf("status without a remote still shows replication: %+v", s.Replication)
	}
	if r := a.ckpt(root, []string{"CKPT_REMOTE=" + urlB, "CKPT_REMOTE_NAME=beta"}, "push", "--timeout", "20s"); r.code == 0 || !strings.Contains(r.stderr, "does not replicate it") {
		t.Errorf("push through a daemon that no longer replicates:\n%s", r)
	}
	writeFiles(t, root, map[string]string{"main.go": "package main // three\n"})
	a.ok(root, "checkpoint", "-m", "third")
	time.Sleep(3 * time.Second) // several of the replicator's polls
	if got := remoteCheckpoints(t, urlB, "beta"); len(got) != len(l.Checkpoints) {
		t.Errorf("%s has %d checkpoints of beta after the remote was removed, want %d", urlB, len(got), len(l.Checkpoints))
	}
}
