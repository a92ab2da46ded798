package remotetest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

type gcJSON struct {
	Pruned []string `json:"pruned"`
	Pinned []struct {
		CheckpointID string `json:"checkpoint_id"`
		Reason       string `json:"reason"`
	} `json:"pinned"`
	OverBudget bool `json:"over_budget"`
}

func (g gcJSON) pin(id string) string {
	for _, p := range g.Pinned {
		if p.CheckpointID == id {
			return p.Reason
		}
	}
	return ""
}

// Retention never prunes what the remote does not have: with the remote
// unreachable, ckpt gc (by age and over the size budget) keeps the
// checkpoints not replicated yet and the history they need, status says
// so, and once replication catches up they are in the remote, exactly,
// and ckpt gc may prune them.
func TestRetentionKeepsUnreplicated(t *testing.T) {
	needWeed(t)
	for _, mode := range []string{"embedded", "daemon"} {
		t.Run(mode, func(t *testing.T) {
			_, url := bucketURL(t)
			// Every checkpoint is days old to retention, and the store is
			// over its budget.
			a := newMachine(t, url, "CKPT_REMOTE_NAME=proj", "CKPT_TEST_PRUNE_AHEAD=72h",
				"CKPT_RETENTION=1d", "CKPT_RETENTION_SIZE=4KiB")
			root := a.dir("proj")
			var unreachable []string
			if mode == "embedded" {
				unreachable = []string{"CKPT_REMOTE_ENDPOINT=http://127.0.0.1:1"}
			}
			cut := func(msg string) string {
				writeFiles(t, root, map[string]string{"f.txt": msg + "\n", msg + ".txt": msg + "\n"})
				checkpointNow(t, a, root, msg)
				var l logJSON
				a.json(root, &l, "log")
				return l.Checkpoints[0].CheckpointID
			}
			writeFiles(t, root, map[string]string{"base.txt": "base\n"})
			a.ok(root, "status")
			if mode == "daemon" {
				a.startDaemon(root)
			}
			cut("one")
			two := cut("two")
			a.ok(root, "push", "--timeout", "1m")

			killed := false
			if mode == "daemon" {
				weed.Kill()
				killed = true
				t.Cleanup(func() {
					if killed {
						weed.Restart()
					}
				})
			}
			three := cut("three")
			want3 := readTree(t, root)
			four := cut("four")
			if r := a.ckpt(root, unreachable, "push", "--timeout", "5s"); r.code == 0 {
				t.Fatalf("push to an unreachable remote succeeded:\n%s", r)
			}

			var g gcJSON
			a.jsonEnv(root, unreachable, &g, "gc")
			if slices.Contains(g.Pruned, three) || slices.Contains(g.Pruned, two) {
				t.Fatalf("gc pruned what the remote lacks (%s, or %s which its journal needs): %+v", three, two, g)
			}
			if g.pin(three) != "unreplicated" || g.pin(two) != "replication_base" || !g.OverBudget {
				t.Errorf("gc: pins %+v, over_budget %v; want %s unreplicated, %s replication_base, over budget", g.Pinned, g.OverBudget, three, two)
			}
			var s struct {
				Replication struct {
					PendingCheckpoints int  `json:"pending_checkpoints"`
					RetentionHeld      bool `json:"retention_held"`
				} `json:"replication"`
			}
			// The daemon's status is as of its last attempt.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				s.Replication.PendingCheckpoints, s.Replication.RetentionHeld = 0, false
				a.jsonEnv(root, unreachable, &s, "status")
				if s.Replication.PendingCheckpoints == 2 && s.Replication.RetentionHeld || time.Now().After(deadline) {
					break
				}
			}
			if s.Replication.PendingCheckpoints != 2 || !s.Replication.RetentionHeld {
				t.Errorf("status: %+v; want 2 pending checkpoints, retention_held", s.Replication)
			}
			if out := a.ckpt(root, unreachable, "status").stdout; !strings.Contains(out, "retention keeps the 2 checkpoints not replicated yet") {
				t.Errorf("status does not say retention keeps what is not replicated:\n%s", out)
			}

			// The remote is back: replication catches up, with the
			// history retention kept.
			if mode == "daemon" {
				if err := weed.Restart(); err != nil {
					t.Fatal(err)
				}
				killed = false
			}
			a.ok(root, "push", "--timeout", "2m")
			b := newMachine(t, url)
			dst := filepath.Join(b.base, "three")
			b.ok(b.base, "clone", url, "proj@"+three, dst)
			sameTree(t, readTree(t, dst), want3)

			g = gcJSON{}
			a.json(root, &g, "gc")
			if !slices.Contains(g.Pruned, three) || slices.Contains(g.Pruned, four) {
				t.Errorf("gc after replication caught up: %+v; want %s pruned, %s kept", g, three, four)
			}
		})
	}
}

// jsonEnv is json with extra environment.
func (m *machine) jsonEnv(dir string, env []string, v any, args ...string) {
	m.t.Helper()
	r := m.ckpt(dir, env, append(args, "--json")...)
	if r.code != 0 {
		m.t.Fatalf("%s", r)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		m.t.Fatalf("ckpt %v --json: %v\n%s", args, err, r.stdout)
	}
}
