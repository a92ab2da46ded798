package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointAsksTheDaemonOnce: with a daemon that serves the
// workspace, a checkpoint is one request (the checkpoint itself, no health
// question first), cut once. When the daemon does not serve the workspace,
// the command goes on as if it had asked: the health question, then
// (autostart off) the checkpoint without the daemon; a stale socket is no
// daemon at all. --rescan asks the health question first, as before.
func TestCheckpointAsksTheDaemonOnce(t *testing.T) {
	ws := newWorkspace(t, daemon)
	ws.write("a.txt", "a\n")
	ws.start()
	p := startRecordingProxy(t, filepath.Join(ws.state, "ckptd.sock"))
	via := []string{"CKPT_SOCKET=" + p.sock}
	count := func() int {
		var l struct {
			Checkpoints []checkpointJSON `json:"checkpoints"`
		}
		ws.ckptJSON(&l, "log")
		return len(l.Checkpoints)
	}
	before := count()

	ws.write("b.txt", "b\n")
	var cp checkpointJSON
	r := ws.ckptEnv(via, "checkpoint", "-m", "one trip", "--json")
	if r.code != 0 || decodeOne(r.stdout, &cp) != nil {
		t.Fatalf("checkpoint through the proxy:\n%s", r)
	}
	if got := p.take(); len(got) != 1 || got[0] != "/v1/checkpoint" {
		t.Errorf("checkpoint asked the daemon %q, want only /v1/checkpoint", got)
	}
	if cp.Reason != "manual" || cp.Message != "one trip" || cp.CheckpointID == "" {
		t.Errorf("checkpoint through the proxy answered %+v", cp)
	}
	if n := count(); n != before+1 {
		t.Errorf("%d checkpoints after one checkpoint, %d before", n, before)
	}
	r = ws.ckptEnv(via, "checkpoint", "-m", "text")
	if r.code != 0 || !strings.Contains(r.stdout, "manual") || !strings.Contains(r.stdout, "text") {
		t.Fatalf("checkpoint (text) through the proxy:\n%s", r)
	}
	if got := p.take(); len(got) != 1 || got[0] != "/v1/checkpoint" {
		t.Errorf("checkpoint (text) asked the daemon %q, want only /v1/checkpoint", got)
	}
	if r := ws.ckptEnv(via, "checkpoint", "--rescan"); r.code != 0 {
		t.Fatalf("checkpoint --rescan:\n%s", r)
	}
	if got := p.take(); len(got) != 3 || got[0] != "/v1/health" || got[1] != "/v1/rescan" || got[2] != "/v1/checkpoint" {
		t.Errorf("checkpoint --rescan asked %q, want the health question, the rescan, the checkpoint", got)
	}

	// A workspace the daemon does not serve, autostart off: the health
	// question after the "not served", then the checkpoint without the
	// daemon, cut once.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "c.txt"), []byte("c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = ws.ckptEnv(via, "-C", other, "checkpoint", "-m", "embedded", "--json")
	if r.code != 0 || decodeOne(r.stdout, &cp) != nil || cp.Message != "embedded" {
		t.Fatalf("checkpoint of a workspace the daemon does not serve:\n%s", r)
	}
	if got := p.take(); len(got) < 2 || got[0] != "/v1/checkpoint" || got[1] != "/v1/health" {
		t.Errorf("checkpoint of a workspace not served asked %q, want /v1/checkpoint, then /v1/health", got)
	}
	var l struct {
		Checkpoints []checkpointJSON `json:"checkpoints"`
	}
	if r := ws.ckptEnv(via, "-C", other, "log", "--json"); r.code != 0 || decodeOne(r.stdout, &l) != nil ||
		len(l.Checkpoints) != 2 || l.Checkpoints[0].Message != "embedded" {
		t.Errorf("log of the workspace not served: want the initial checkpoint and one manual one\n%s", r)
	}

	// A stale socket: nothing listens.
	stale := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	r = ws.ckptEnv([]string{"CKPT_SOCKET=" + stale}, "-C", other, "checkpoint", "--json")
	if r.code != 0 || decodeOne(r.stdout, &cp) != nil || cp.Reason != "manual" {
		t.Errorf("checkpoint with a stale socket: want the checkpoint without a daemon\n%s", r)
	}
}
