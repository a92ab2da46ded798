package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// daemon is a running `ckptd watch TREE`.
type daemon struct {
	cmd    *exec.Cmd
	socket string
	log    string
	done   chan struct{}
	err    error
	// started is when the process was started; answered, how long after
	// it a first ckpt status was answered through it (while its first
	// import may still run).
	started  time.Time
	answered time.Duration
}

var (
	daemonsMu sync.Mutex
	daemons   = map[*daemon]bool{}
)

// stopAllDaemons ends every daemon the harness started (on exit or ^C).
func stopAllDaemons() {
	daemonsMu.Lock()
	ds := make([]*daemon, 0, len(daemons))
	for d := range daemons {
		ds = append(ds, d)
	}
	daemonsMu.Unlock()
	for _, d := range ds {
		d.stop()
	}
}

// startDaemon starts ckptd on tree with state as its state directory and
// returns once `ckpt status` answers through it and says its first import
// (if one runs) is done, with the time that took.
func startDaemon(ctx context.Context, bin string, c *client, logPath string) (*daemon, time.Duration, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, 0, err
	}
	defer logf.Close()
	// Not CommandContext: the daemon gets SIGTERM and time to close its store.
	cmd := exec.Command(bin, "watch", c.tree)
	cmd.Env = c.env
	cmd.Dir = c.tree
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	d := &daemon{cmd: cmd, socket: filepath.Join(c.state, "ckptd.sock"), log: logPath, done: make(chan struct{}), started: start}
	daemonsMu.Lock()
	daemons[d] = true
	daemonsMu.Unlock()
	go func() { d.err = cmd.Wait(); close(d.done) }()

	deadline := time.Now().Add(15 * time.Minute)
	failures := 0
	for {
		select {
		case <-d.done:
			return nil, 0, fmt.Errorf("ckptd exited (%v): %s", d.err, tail(logPath))
		case <-ctx.Done():
			d.stop()
			return nil, 0, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, 0, fmt.Errorf("ckptd did not serve %s in time", c.tree)
		}
		if !d.accepting() {
			continue
		}
		_, s, err := c.status()
		if err == nil && s.Daemon.Running {
			if d.answered == 0 {
				d.answered = time.Since(start)
			}
			if s.Importing == nil {
				return d, time.Since(start), nil
			}
			continue
		}
		failures++
		if failures >= 3 {
			d.stop()
			if err == nil {
				err = errors.New("ckpt status says no daemon runs")
			}
			return nil, 0, fmt.Errorf("ckpt does not talk to ckptd: %v", err)
		}
	}
}

func (d *daemon) accepting() bool {
	conn, err := net.DialTimeout("unix", d.socket, 100*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

func (d *daemon) pid() int { return d.cmd.Process.Pid }

// errDaemonDied: the daemon exited while it was being measured.
var errDaemonDied = errors.New("ckptd exited during the measurement")

func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, waits for a clean exit, and kills after 20 s.
func (d *daemon) stop() error {
	daemonsMu.Lock()
	live := daemons[d]
	delete(daemons, d)
	daemonsMu.Unlock()
	if !live {
		return nil
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(20 * time.Second):
		syscall.Kill(-d.pid(), syscall.SIGKILL)
		<-d.done
		return fmt.Errorf("ckptd did not exit on SIGTERM within 20s; killed")
	}
	return nil
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}

// mem is a process's memory from /proc/PID/status, in bytes: resident
// (anonymous: heap and stacks; file: mapped files such as Badger's tables
// and value log, which the kernel can drop) and the high-water mark.
type mem struct{ RSS, Anon, File, HWM int64 }

func procMem(pid int) (mem, error) {
	var m mem
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			m.RSS = n << 10
		case "RssAnon":
			m.Anon = n << 10
		case "RssFile":
			m.File = n << 10
		case "VmHWM":
			m.HWM = n << 10
		}
	}
	return m, nil
}

// settledRSS waits until the daemon's RSS stops moving (under 1 MiB over
// a second, at most 15 s) and returns it.
func settledRSS(pid int) mem {
	var last int64 = -1 << 40
	var m mem
	for i := 0; i < 15; i++ {
		time.Sleep(time.Second)
		m, _ = procMem(pid)
		if abs64(m.RSS-last) < 1<<20 {
			break
		}
		last = m.RSS
	}
	return m
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// phase names what the harness is doing, for the RSS sampler.
var phase atomic.Value

func setPhase(s string) { phase.Store(s) }

// rssSampler samples the daemon's memory every few milliseconds until
// stopped, and keeps the peak and what the harness was doing then.
type rssSampler struct {
	stopc chan struct{}
	done  chan struct{}
	peak  mem
	at    string
}

func sampleRSS(pid int) *rssSampler {
	s := &rssSampler{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := procMem(pid); err == nil && m.RSS > s.peak.RSS {
				s.peak = m
				s.at, _ = phase.Load().(string)
			}
			select {
			case <-s.stopc:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() (mem, string) { close(s.stopc); <-s.done; return s.peak, s.at }

// sseLine is one line of the event stream and when it arrived.
type sseLine struct {
	at   time.Time
	data string
}

// subscribe opens GET /v1/events?workspace=ROOT on the daemon's socket.
func subscribe(ctx context.Context, socket, root string) (<-chan sseLine, func(), error) {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "unix", socket)
	}}
	ctx, cancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://ckptd/v1/events?workspace="+url.QueryEscape(root), nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("GET /v1/events: %s", resp.Status)
	}
	ch := make(chan sseLine, 4096)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				select {
				case ch <- sseLine{at: time.Now(), data: data}:
				default: // the harness is behind; drop
				}
			}
		}
	}()
	return ch, cancel, nil
}

// latencyResult is write-to-captured latency over a series of writes.
type latencyResult struct {
	Mode    string    // "sse" or "status-poll"
	Samples []float64 // ms
	Missed  int
}

// measureLatency writes n files one at a time (new files and appends to
// existing ones) and measures from each write to the daemon's change event
// for its path. Without an event stream it polls `ckpt status`.
func measureLatency(ctx context.Context, d *daemon, c *client, files []string, n int) (latencyResult, []string, error) {
	latDir := filepath.Join(c.tree, "bench-lat")
	if err := os.MkdirAll(latDir, 0o755); err != nil {
		return latencyResult{}, nil, err
	}
	if _, _, err := c.status(); err != nil { // the new directory is watched
		return latencyResult{}, nil, err
	}
	ch, cancel, err := subscribe(ctx, d.socket, c.tree)
	res := latencyResult{Mode: "sse"}
	if err != nil {
		res.Mode = "status-poll"
		fmt.Fprintf(os.Stderr, "  no event stream (%v): polling ckpt status instead\n", err)
	} else {
		defer cancel()
		time.Sleep(100 * time.Millisecond)
	}
	appends := pick(files, n/2)
	var written []string
	for i := 0; i < n; i++ {
		var rel string
		var write func() error
		if i%2 == 0 || len(appends) == 0 {
			rel = fmt.Sprintf("bench-lat/w%04d.txt", i)
			body := []byte(fmt.Sprintf("write %d\n%s", i, linePool[i%len(linePool)]))
			write = func() error { return os.WriteFile(filepath.Join(c.tree, rel), body, 0o644) }
		} else {
			rel = appends[(i/2)%len(appends)]
			write = func() error {
				f, err := os.OpenFile(filepath.Join(c.tree, rel), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(f, "// latency %d\n", i)
				f.Close()
				return err
			}
		}
		written = append(written, rel)
		// Drain what came before this write.
		for drained := false; !drained && ch != nil; {
			select {
			case _, ok := <-ch:
				if !ok {
					return res, written, errors.New("event stream closed")
				}
			default:
				drained = true
			}
		}
		start := time.Now()
		if err := write(); err != nil {
			return res, written, err
		}
		got := false
		if ch != nil {
			timeout := time.After(5 * time.Second)
		wait:
			for {
				select {
				case l, ok := <-ch:
					if !ok {
						return res, written, errors.New("event stream closed")
					}
					if strings.Contains(l.data, `"`+rel+`"`) {
						res.Samples = append(res.Samples, ms(l.at.Sub(start)))
						got = true
						break wait
					}
				case <-timeout:
					break wait
				}
			}
		} else {
			for t := 0; t < 50 && !got; t++ {
				_, s, err := c.status()
				if err != nil {
					return res, written, err
				}
				for _, ch := range s.Changes {
					if ch.Path == rel {
						got = true
					}
				}
				if got {
					res.Samples = append(res.Samples, ms(time.Since(start)))
				}
			}
		}
		if !got {
			res.Missed++
		}
		time.Sleep(time.Duration(5+i%10) * time.Millisecond)
	}
	return res, written, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
