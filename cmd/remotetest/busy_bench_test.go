package remotetest

import (
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/statedir"
)

// TestReplicationKeepsUpBench measures, behind CKPT_REMOTE_BENCH=1, whether
// the daemon's replication keeps up with a busy agent: a writer changes
// about 1,000 files a minute (1-64 KiB of random bytes each, over 3,000
// paths that overlap) while a checkpoint is cut every 5 s, for
// CKPT_REMOTE_BENCH_BUSY (default 3m). It samples the daemon's
// replication status (the file ckpt status reads) every 200 ms and the
// daemon's RSS, and prints the lag from each checkpoint's cut to its
// replication (p50, p99, max), the largest queue (pending checkpoints and
// journal entries) and the RSS. It asserts nothing.
//
//	CKPT_REMOTE_BENCH=1 go test ./cmd/remotetest -run TestReplicationKeepsUpBench -v -timeout 30m
func TestReplicationKeepsUpBench(t *testing.T) {
	if os.Getenv("CKPT_REMOTE_BENCH") == "" {
		t.Skip("set CKPT_REMOTE_BENCH=1 to run the replication benchmark")
	}
	needWeed(t)
	busy := 3 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("CKPT_REMOTE_BENCH_BUSY")); err == nil && d > 0 {
		busy = d
	}
	const paths, perMinute, every = 3000, 1000, 5 * time.Second
	// CKPT_REMOTE_BENCH_BASELINE=1: the same agent with no remote, for
	// the daemon's memory and CPU without replication.
	baseline := os.Getenv("CKPT_REMOTE_BENCH_BASELINE") != ""
	url := ""
	if !baseline {
		_, url = bucketURL(t)
	}
	a := newMachine(t, url, "CKPT_REMOTE_NAME=busy")
	root := a.dir("busy")
	rng := mrand.New(mrand.NewPCG(1, 2))
	write := func(i int) int {
		b := make([]byte, 1<<10+rng.IntN(63<<10))
		for j := 0; j < len(b); j += 8 {
			v := rng.Uint64()
			for k := 0; k < 8 && j+k < len(b); k++ {
				b[j+k] = byte(v >> (8 * k))
			}
		}
		p := filepath.Join(root, fmt.Sprintf("d%02d/f%04d.bin", i%50, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Error(err)
		}
		return len(b)
	}
	for i := range paths / 3 { // a tree to start from
		write(i * 3)
	}
	a.startDaemon(root)
	if !baseline {
		a.ok(root, "push", "--timeout", "10m") // the first upload, not measured
	}
	pid := a.daemon.Process.Pid
	cpu0 := processCPU(pid)

	statusFile := statedir.ReplicationFile(a.state, root)
	type cut struct {
		ord int
		at  time.Time
	}
	var (
		mu      sync.Mutex
		cuts    []cut
		lags    []time.Duration
		done    = map[int]bool{}
		maxCk   int
		maxCh   uint64
		rss     []int64
		written int
		bytes   int64
	)
	ordOf := func(id string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(id, "-", 2)[0], "ck"))
		return n
	}
	// sample records a status: every checkpoint through the replicated
	// one is replicated now.
	sample := func(now time.Time) {
		st := api.ReadReplicationFile(statusFile)
		if st == nil {
			return
		}
		through := ordOf(st.ReplicatedCheckpointID)
		mu.Lock()
		defer mu.Unlock()
		for _, c := range cuts {
			if c.ord <= through && !done[c.ord] {
				done[c.ord] = true
				lags = append(lags, now.Sub(c.at))
			}
		}
		maxCk, maxCh = max(maxCk, st.PendingCheckpoints), max(maxCh, st.PendingChanges)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // the writer
		defer wg.Done()
		tick := time.NewTicker(time.Minute / perMinute)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			n := write(rng.IntN(paths))
			mu.Lock()
			written++
			bytes += int64(n)
			mu.Unlock()
		}
	}()
	go func() { // the sampler
		defer wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				sample(now)
				if i%5 == 0 {
					r := daemonRSS(pid)
					mu.Lock()
					rss = append(rss, r)
					mu.Unlock()
				}
			}
		}
	}()
	start := time.Now()
	go func() { // the checkpoints
		defer wg.Done()
		for time.Since(start) < busy {
			time.Sleep(every)
			var c struct {
				CheckpointID string `json:"checkpoint_id"`
			}
			a.json(root, &c, "checkpoint", "-m", "busy")
			mu.Lock()
			cuts = append(cuts, cut{ordOf(c.CheckpointID), time.Now()})
			mu.Unlock()
		}
	}()
	// The checkpoints end the busy period; the writer and sampler go on
	// until they stop.
	for time.Since(start) < busy+every {
		time.Sleep(time.Second)
	}
	cpu := processCPU(pid) - cpu0
	// Catching up after the writer stops.
	deadline := time.Now().Add(5 * time.Minute)
	for !baseline {
		mu.Lock()
		left := len(cuts) - len(done)
		mu.Unlock()
		if left == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	sample(time.Now())

	slices.Sort(lags)
	rssFirst, rssLast := int64(0), int64(0)
	if len(rss) > 0 {
		rssFirst, rssLast = rss[min(len(rss)-1, 60)], rss[len(rss)-1] // a minute in, and at the end
	}
	slices.Sort(rss)
	pct := func(p float64) time.Duration {
		if len(lags) == 0 {
			return 0
		}
		return lags[min(len(lags)-1, int(p*float64(len(lags))))]
	}
	elapsed := time.Since(start)
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("busy agent for %s: %d files written (%.0f a minute, %.1f MiB), %d checkpoints, %d replicated",
		busy, written, float64(written)/elapsed.Minutes(), float64(bytes)/(1<<20), len(cuts), len(lags))
	t.Logf("lag from cut to replicated: p50 %s, p99 %s, max %s", pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond))
	t.Logf("queue: at most %d pending checkpoints, %d pending changes", maxCk, maxCh)
	if len(rss) > 0 {
		t.Logf("ckptd RSS: median %.0f MiB, max %.0f MiB; a minute in %.0f MiB, at the end %.0f MiB", float64(rss[len(rss)/2])/(1<<20),
			float64(rss[len(rss)-1])/(1<<20), float64(rssFirst)/(1<<20), float64(rssLast)/(1<<20))
	}
	t.Logf("ckptd CPU while busy: %.1f s in %s (%.0f%% of a core)", cpu.Seconds(), busy+every, 100*cpu.Seconds()/(busy+every).Seconds())
	t.Logf("load average: %s", strings.TrimSpace(string(load)))
	if !baseline && len(lags) < len(cuts) {
		t.Errorf("%d of %d checkpoints were not replicated within 5 minutes of the end", len(cuts)-len(lags), len(cuts))
	}
	var s struct{ Replication json.RawMessage }
	a.json(root, &s, "status")
	t.Logf("final status replication: %s", s.Replication)
}

// daemonRSS is a process's resident set in bytes (0 if unknown).
func daemonRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// processCPU is the user and system time a process has used.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command's closing parenthesis: utime and stime
	// are the 12th and 13th, in clock ticks (100 a second).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}
