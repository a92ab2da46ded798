// Command hooktimer times the hook of one tool call outside any agent:
// it runs `CKPT hook claude-code` with a PreToolUse payload, then with a
// PostToolUse payload, N times (after 5 rounds not counted), and prints
// the median and the 99th percentile of the pair's wall time and CPU time
// (user+sys of both hook processes; the daemon's share is not counted).
// Run it in a workspace a daemon serves, after a UserPromptSubmit of the
// same session has opened a run:
//
//	CKPT_STATE_DIR=S ckpt hook claude-code < prompt.json
//	CKPT_STATE_DIR=S go run ./bench/hooktimer ckpt pre.json post.json 100
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: hooktimer CKPT PRE.json POST.json [N]")
		os.Exit(2)
	}
	bin, n := os.Args[1], 100
	if len(os.Args) > 4 {
		var err error
		if n, err = strconv.Atoi(os.Args[4]); err != nil || n <= 0 {
			fmt.Fprintln(os.Stderr, "hooktimer: N must be a positive number")
			os.Exit(2)
		}
	}
	pre, err1 := os.ReadFile(os.Args[2])
	post, err2 := os.ReadFile(os.Args[3])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "hooktimer:", err1, err2)
		os.Exit(1)
	}
	var walls, cpus []float64
	for i := -5; i < n; i++ {
		w1, c1 := runHook(bin, pre)
		w2, c2 := runHook(bin, post)
		if i >= 0 {
			walls = append(walls, ms(w1+w2))
			cpus = append(cpus, ms(c1+c2))
		}
	}
	fmt.Printf("%s: %d tool calls: wall p50 %.2f p99 %.2f ms; CPU p50 %.2f p99 %.2f ms\n",
		bin, n, quantile(walls, .5), quantile(walls, .99), quantile(cpus, .5), quantile(cpus, .99))
}

// runHook runs one hook with payload on stdin: its wall and CPU time.
func runHook(bin string, payload []byte) (wall, cpu time.Duration) {
	cmd := exec.Command(bin, "hook", "claude-code")
	cmd.Stdin = bytes.NewReader(payload)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "hooktimer: %v\n%s", err, out)
		os.Exit(1)
	}
	wall = time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return wall, time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func quantile(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}
