package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// TestBenchHookOverhead measures what ckpt's hooks cost per tool call
// through the real Claude Code client, on a generated workspace of
// CKPT_HOOK_BENCH_FILES files (default 200,000) that no daemon serves yet,
// with autostart on:
//
//	CKPT_HOOK_BENCH=1 go test ./cmd/e2e -run TestBenchHookOverhead -v -timeout 60m
//
// Turn 1 starts in the fresh workspace: its first hook starts ckptd (which
// imports the tree) and must answer within 1 s; the hooks while the import
// runs answer at once, recording nothing. Once the daemon serves the
// workspace, turns 2 and 3 make CKPT_HOOK_BENCH_CALLS Bash calls each
// (default 50). Every hook runs under a timer (a small Go program that runs
// `ckpt hook claude-code` and logs its wall time), so the overhead of a tool
// call is its PreToolUse plus its PostToolUse. It prints p50, p99 and the
// maximum; it is a benchmark, not a test of the targets.
func TestBenchHookOverhead(t *testing.T) {
	if os.Getenv("CKPT_HOOK_BENCH") != "1" {
		t.Skip("a benchmark: set CKPT_HOOK_BENCH=1")
	}
	claudeBinary(t)
	requireDaemon(t)
	claudeTimeout = 20 * time.Minute // a turn of many calls on a loaded machine
	t.Cleanup(func() { claudeTimeout = 90 * time.Second })
	files := envInt(t, "CKPT_HOOK_BENCH_FILES", 200_000)
	calls := envInt(t, "CKPT_HOOK_BENCH_CALLS", 50)
	ws := newWorkspace(t, embedded, "CKPT_AUTOSTART=1")
	t.Cleanup(func() { stopDaemons(t, ws.state) })
	start := time.Now()
	generateTree(t, ws.root, files)
	t.Logf("generated %d files in %s", files, time.Since(start).Round(time.Millisecond))

	timer := buildHookTimer(t, ws.base)
	timings := filepath.Join(ws.base, "hook-times")
	bash := func(i int) apiToolUse {
		return apiToolUse{id: fmt.Sprintf("toolu_%d", i), name: "Bash", input: map[string]any{"command": fmt.Sprintf("echo %d >> bench.log", i), "description": "append"}}
	}
	steps := func(name string) []apiReply {
		var rs []apiReply
		for i := range calls {
			rs = append(rs, apiReply{tools: []apiToolUse{bash(i)}})
		}
		return append(rs, apiReply{text: name + " done"})
	}
	c := newClaudeSession(t, ws, map[string][]apiReply{
		"t1": {{tools: []apiToolUse{bash(0)}}, {text: "t1 done"}},
		"t2": steps("t2"), "t3": steps("t3"),
	}, false)
	installClaudeHooks(t, ws.root, timer+" "+timings+" "+ckptBin, "")

	c.turnAllowFailure("[[script:t1]] first turn in a fresh workspace")
	first := readHookTimes(t, timings)
	if len(first) == 0 {
		t.Fatal("no hook ran")
	}
	t.Logf("turn 1 (fresh workspace, autostart): first hook (%s) %s; %d hooks during the import: max %s",
		first[0].event, first[0].took, len(first)-1, maxTook(first[1:]))

	start = time.Now()
	for {
		list := ws.workspaces()
		if len(list.Workspaces) == 1 && list.Workspaces[0].State == "ready" {
			break
		}
		if time.Since(start) > 30*time.Minute {
			t.Fatalf("the import did not finish within 30m: %+v", list)
		}
		time.Sleep(time.Second)
	}
	t.Logf("the daemon served the workspace %s after turn 1", time.Since(start).Round(time.Millisecond))
	ws.ckptOK("status") // the initial reconcile is done

	os.Remove(timings)
	c.turn("[[script:t2]] many calls")
	c.turn("[[script:t3]] many calls")
	later := readHookTimes(t, timings)
	perCall, perCallCPU := toolCallOverheads(later)
	if len(perCall) < 2*calls {
		t.Fatalf("%d tool calls timed, want %d", len(perCall), 2*calls)
	}
	t.Logf("with the daemon, %d files: hook overhead per tool call (PreToolUse+PostToolUse), %d calls: p50 %s, p99 %s, max %s; ckpt's own CPU p50 %s, p99 %s",
		files, len(perCall), quantile(perCall, 0.5), quantile(perCall, 0.99), quantile(perCall, 1),
		quantile(perCallCPU, 0.5), quantile(perCallCPU, 0.99))
	for _, ev := range []string{"UserPromptSubmit", "Stop"} {
		for _, h := range later {
			if h.event == ev {
				t.Logf("  %s: %s", ev, h.took)
			}
		}
	}
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// generateTree writes n small files under root, 500 to a directory.
func generateTree(t *testing.T, root string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("d%04d", i/500))
		if i%500 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hookTime is one timed hook: its event and how long ckpt took.
type hookTime struct {
	event string
	took  time.Duration
	code  int
	cpu   time.Duration // ckpt's own CPU time (user+sys), the daemon's not included
}

func readHookTimes(t *testing.T, path string) []hookTime {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []hookTime
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var h hookTime
		var ns, cpu int64
		if _, err := fmt.Sscanf(sc.Text(), "%s %d %d %d", &h.event, &ns, &h.code, &cpu); err != nil {
			t.Fatalf("hook timing line %q: %v", sc.Text(), err)
		}
		h.took, h.cpu = time.Duration(ns), time.Duration(cpu)
		out = append(out, h)
	}
	return out
}

func maxTook(hs []hookTime) time.Duration {
	var m time.Duration
	for _, h := range hs {
		m = max(m, h.took)
	}
	return m
}

// toolCallOverheads pairs each PreToolUse with the PostToolUse after it:
// their wall times and their CPU times, summed.
func toolCallOverheads(hs []hookTime) (wall, cpu []time.Duration) {
	var pre *hookTime
	for i, h := range hs {
		switch h.event {
		case "PreToolUse":
			pre = &hs[i]
		case "PostToolUse":
			if pre != nil {
				wall, cpu = append(wall, pre.took+h.took), append(cpu, pre.cpu+h.cpu)
			}
			pre = nil
		}
	}
	return wall, cpu
}

// quantile is the p-quantile of ds (sorted in place).
func quantile(ds []time.Duration, p float64) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[int(p*float64(len(ds)-1))]
}

// buildHookTimer builds the timer the hooks run under: `timer LOG PROG
// ARGS...` runs PROG with the hook's stdin, stdout and stderr and appends
// "EVENT NANOSECONDS EXITCODE" to LOG, counting PROG's run only.
func buildHookTimer(t *testing.T, base string) string {
	t.Helper()
	dir := filepath.Join(base, "hooktimer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"time"
)

func main() {
	in, _ := io.ReadAll(os.Stdin)
	ev := "unknown"
	if m := regexp.MustCompile("\"hook_event_name\"\\s*:\\s*\"([A-Za-z]+)\"").FindSubmatch(in); m != nil {
		ev = string(m[1])
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), os.Stdout, os.Stderr
	start := time.Now()
	cmd.Run()
	took := time.Since(start)
	code, cpu := 0, time.Duration(0)
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	f, _ := os.OpenFile(os.Args[1], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	fmt.Fprintf(f, "%s %d %d %d\n", ev, took.Nanoseconds(), code, cpu.Nanoseconds())
	f.Close()
	os.Exit(code)
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hooktimer\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "hooktimer")
	if out, err := goCommand(dir, "build", "-o", bin, "."); err != nil {
		t.Fatalf("build the hook timer: %v\n%s", err, out)
	}
	return bin
}
