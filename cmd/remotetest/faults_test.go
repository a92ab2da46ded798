package remotetest

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type statusJSON struct {
	Replication *struct {
		ReplicatedCheckpointID string `json:"replicated_checkpoint_id"`
		PendingCheckpoints     int    `json:"pending_checkpoints"`
		LastError              string `json:"last_error"`
	} `json:"replication"`
}

func randomFiles(t *testing.T, root, prefix string, n, size int) {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		b := make([]byte, size)
		rand.Read(b)
		files[fmt.Sprintf("%s/%03d.bin", prefix, i)] = string(b)
	}
	writeFiles(t, root, files)
}

// checkpointNow cuts a checkpoint and fails if it takes long: capture and
// checkpoints never wait for the remote.
func checkpointNow(t *testing.T, m *machine, root, msg string) {
	t.Helper()
	start := time.Now()
	m.ok(root, "checkpoint", "-m", msg)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("checkpoint %q took %s while the remote was failing", msg, d)
	}
}

// waitStatus polls ckpt status until ok says so.
func waitStatus(t *testing.T, m *machine, root string, within time.Duration, what string, ok func(statusJSON) bool) statusJSON {
	t.Helper()
	deadline := time.Now().Add(within)
	var s statusJSON
	for time.Now().Before(deadline) {
		// Fresh each time: fields the JSON omits (last_error once
		// replication resumes) must not keep an earlier answer's value.
		s = statusJSON{}
		m.json(root, &s, "status")
		if ok(s) {
			return s
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("within %s, status never showed %s; last: %+v\ndaemon log:\n%s", within, what, s.Replication, m.daemonLog())
	return s
}

// caughtUp waits until the daemon has replicated every checkpoint, then
// checks that the remote lists every one the workspace has (nothing
// acknowledged lost) and that a clone on a fresh machine is the disk.
func caughtUp(t *testing.T, a *machine, root, url, name string) {
	t.Helper()
	// With a daemon, push fails as soon as one of its attempts fails,
	// which the faults make likely: push again until one gets through.
	for deadline := time.Now().Add(3 * time.Minute); ; {
		r := a.ckpt(root, nil, "push", "--timeout", "3m")
		if r.code == 0 {
			break
		}
		if !strings.Contains(r.stderr, "the daemon's replication failed") || time.Now().After(deadline) {
			t.Fatalf("%s", r)
		}
		time.Sleep(time.Second)
	}
	var l logJSON
	a.json(root, &l, "log")
	have := map[string]bool{}
	for _, id := range remoteCheckpoints(t, url, name) {
		have[id] = true
	}
	for _, cp := range l.Checkpoints {
		if !have[cp.CheckpointID] {
			t.Errorf("checkpoint %s (%s) is not replicated", cp.CheckpointID, cp.Message)
		}
	}
	b := newMachine(t, url)
	dst := filepath.Join(b.base, "clone")
	b.ok(b.base, "clone", url, name, dst)
	sameTree(t, readTree(t, dst), readTree(t, root))
}

// The S3 server killed mid-upload and started again: capture goes on,
// status says why replication is behind, and it catches up.
func TestReplicationSurvivesServerKill(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	a := newMachine(t, url, "CKPT_REMOTE_NAME=proj", "CKPT_REMOTE_BANDWIDTH=2MiB")
	root := a.dir("proj")
	randomFiles(t, root, "big", 60, 100<<10) // 6 MB: 3 s at 2 MiB/s
	a.startDaemon(root)
	waitStatus(t, a, root, 20*time.Second, "a push under way", func(s statusJSON) bool {
		return s.Replication != nil && s.Replication.PendingCheckpoints > 0
	})
	time.Sleep(time.Second) // into the upload
	weed.Kill()
	killed := true
	t.Cleanup(func() {
		if killed {
			weed.Restart()
		}
	})
	randomFiles(t, root, "during", 20, 10<<10)
	checkpointNow(t, a, root, "while the server is down")
	s := waitStatus(t, a, root, 60*time.Second, "the failure", func(s statusJSON) bool {
		return s.Replication != nil && s.Replication.LastError != ""
	})
	if s.Replication.PendingCheckpoints == 0 {
		t.Errorf("status says nothing is pending while the server is down: %+v", s.Replication)
	}
	checkpointNow(t, a, root, "still down")
	if err := weed.Restart(); err != nil {
		t.Fatal(err)
	}
	killed = false
	randomFiles(t, root, "after", 5, 1000)
	checkpointNow(t, a, root, "after the restart")
	caughtUp(t, a, root, url, "proj")
	if !strings.Contains(a.daemonLog(), "replication failed") {
		t.Errorf("the daemon's log does not show the failure:\n%s", a.daemonLog())
	}
}

// flakyProxy forwards TCP to target, closing every third connection after
// some bytes, and delaying every chunk.
type flakyProxy struct {
	l       net.Listener
	target  string
	n       atomic.Int64
	dropped atomic.Int64
	wg      sync.WaitGroup
}

func startProxy(t *testing.T, target string) *flakyProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{l: l, target: target}
	go p.serve()
	t.Cleanup(func() { l.Close() })
	return p
}

func (p *flakyProxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		go p.handle(c, p.n.Add(1))
	}
}

func (p *flakyProxy) handle(c net.Conn, n int64) {
	defer c.Close()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	budget := int64(-1)
	if n%3 == 0 {
		budget = 2000 + n*997%20000 // dropped after this many bytes up
	}
	done := make(chan struct{}, 2)
	go func() { io.Copy(c, slow{up}); done <- struct{}{} }()
	go func() {
		buf := make([]byte, 8192)
		var sent int64
		for {
			k, err := c.Read(buf)
			if k > 0 {
				if budget >= 0 && sent+int64(k) > budget {
					p.dropped.Add(1)
					done <- struct{}{}
					return
				}
				sent += int64(k)
				if _, werr := up.Write(buf[:k]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}()
	<-done
}

// slow delays every read.
type slow struct{ r io.Reader }

func (s slow) Read(b []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	return s.r.Read(b)
}

// Through a proxy that drops and delays connections, replication still
// gets everything there, exactly.
func TestReplicationThroughFlakyProxy(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	p := startProxy(t, strings.TrimPrefix(weed.Endpoint, "http://"))
	a := newMachine(t, url, "CKPT_REMOTE_NAME=proj", "CKPT_REMOTE_ENDPOINT=http://"+p.l.Addr().String())
	root := a.dir("proj")
	randomFiles(t, root, "first", 40, 20<<10)
	a.startDaemon(root)
	for i := range 3 {
		randomFiles(t, root, fmt.Sprintf("round%d", i), 10, 30<<10)
		checkpointNow(t, a, root, fmt.Sprintf("round %d", i))
	}
	caughtUp(t, a, root, url, "proj")
	if p.dropped.Load() == 0 {
		t.Errorf("the proxy dropped no connection (of %d): the test tested nothing", p.n.Load())
	}
}

// A bucket over its quota (SeaweedFS makes it read-only) stops uploads,
// not capture; with room again, replication catches up.
func TestReplicationWaitsOutFullBucket(t *testing.T) {
	needWeed(t)
	bucket, url := bucketURL(t)
	a := newMachine(t, url, "CKPT_REMOTE_NAME=proj")
	root := a.dir("proj")
	randomFiles(t, root, "base", 20, 100<<10) // 2 MB
	a.startDaemon(root)
	a.ok(root, "push", "--timeout", "2m")
	quota(t, bucket, 1, "read only")
	t.Cleanup(func() { weed.Shell("s3.bucket.quota -name " + bucket + " -op remove\ns3.bucket.quota.enforce -apply") })
	randomFiles(t, root, "over", 5, 10<<10)
	checkpointNow(t, a, root, "over the quota")
	s := waitStatus(t, a, root, 60*time.Second, "the failure", func(s statusJSON) bool {
		return s.Replication != nil && s.Replication.LastError != ""
	})
	if s.Replication.PendingCheckpoints == 0 {
		t.Errorf("nothing pending over the quota: %+v", s.Replication)
	}
	checkpointNow(t, a, root, "still over")
	quota(t, bucket, 100, "writable")
	// The S3 gateway learns that the bucket is writable again a moment
	// after the filer does: the daemon's retries (a minute apart at most)
	// may fail meanwhile, and a push fails on a failed attempt.
	waitStatus(t, a, root, 3*time.Minute, "replication resumed", func(s statusJSON) bool {
		return s.Replication != nil && s.Replication.LastError == "" && s.Replication.PendingCheckpoints == 0
	})
	caughtUp(t, a, root, url, "proj")
}

// quota sets bucket's quota to mb MiB and enforces it until SeaweedFS says
// the bucket is (made) want ("read only", "writable"): the sizes it
// enforces come from the volume servers' heartbeats.
func quota(t *testing.T, bucket string, mb int, want string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		var err error
		out, err = weed.Shell(fmt.Sprintf("s3.bucket.quota -name %s -op set -sizeMB %d\ns3.bucket.quota.enforce -apply", bucket, mb))
		if err != nil {
			t.Fatalf("weed shell: %v\n%s", err, out)
		}
		if strings.Contains(out, want) || want == "writable" && !strings.Contains(out, "read only") && strings.Contains(out, "usage:") {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("bucket %s never became %s:\n%s", bucket, want, out)
}
