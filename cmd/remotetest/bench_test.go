package remotetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store/remote/weedtest"
)

// TestRemoteBench measures, behind CKPT_REMOTE_BENCH=1, the first upload of
// a 15k-file tree (a copy of GOROOT) against `rclone copy` of the same tree
// to the same server, and `ckpt clone` of it against `git clone` of a
// local bare repository holding the same files. It prints a table; it
// asserts nothing (targets are met in benchmarks, not in tests).
//
//	CKPT_REMOTE_BENCH=1 go test ./cmd/remotetest -run TestRemoteBench -v -timeout 60m
//
// CKPT_REMOTE_BENCH_RUNS=N sets the runs of rclone and of the clones (3).
func TestRemoteBench(t *testing.T) {
	if os.Getenv("CKPT_REMOTE_BENCH") == "" {
		t.Skip("set CKPT_REMOTE_BENCH=1 to run the replication benchmark")
	}
	needWeed(t)
	rclone, err := exec.LookPath("rclone")
	if err != nil {
		t.Fatal("rclone is not installed (apt-get install rclone)")
	}
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("CKPT_REMOTE_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	commandTimeout = 30 * time.Minute
	bucket, url := bucketURL(t)
	a := newMachine(t, url, "CKPT_REMOTE_NAME=goroot")
	tree := filepath.Join(a.base, "goroot")
	// CKPT_REMOTE_BENCH_TREE: a directory of GOROOT instead (src/cmd), for
	// a shorter run.
	sh(t, "", "cp", "-a", filepath.Join(runtime.GOROOT(), os.Getenv("CKPT_REMOTE_BENCH_TREE")), tree)
	files := strings.Count(sh(t, tree, "find", ".", "-type", "f"), "\n")

	importTime := timed(func() { a.ok(tree, "status") })
	pushTime := timed(func() { a.ok(tree, "push") })
	t.Logf("%d files: import %s, first push %s", files, importTime, pushTime)

	rcloneEnv := []string{"RCLONE_CONFIG_W_TYPE=s3", "RCLONE_CONFIG_W_PROVIDER=SeaweedFS",
		"RCLONE_CONFIG_W_ENDPOINT=" + weed.Endpoint, "RCLONE_CONFIG_W_ACCESS_KEY_ID=" + weedtest.AccessKey,
		"RCLONE_CONFIG_W_SECRET_ACCESS_KEY=" + weedtest.SecretKey}
	var rcloneTimes []time.Duration
	// CKPT_REMOTE_BENCH_CLONE=1 measures the clones only.
	rcloneRuns := runs
	if os.Getenv("CKPT_REMOTE_BENCH_CLONE") != "" {
		rcloneRuns, rcloneTimes = 0, []time.Duration{1}
	}
	for i := range rcloneRuns {
		rcloneTimes = append(rcloneTimes, timed(func() {
			shEnv(t, "", rcloneEnv, rclone, "copy", tree, fmt.Sprintf("w:%s/rclone%d", bucket, i))
		}))
		t.Logf("rclone copy: %s", rcloneTimes[i])
	}

	bare := filepath.Join(a.base, "bare.git")
	work := filepath.Join(a.base, "gitwork")
	sh(t, "", "cp", "-a", tree, work)
	gitEnv := []string{"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b"}
	shEnv(t, work, gitEnv, "git", "init", "-q")
	shEnv(t, work, gitEnv, "git", "add", "-A", "-f")
	shEnv(t, work, gitEnv, "git", "commit", "-q", "-m", "x")
	sh(t, "", "git", "clone", "-q", "--bare", work, bare)

	var cloneTimes, gitTimes, gitNoLinkTimes []time.Duration
	for i := range runs {
		b := newMachine(t, "")
		cloneTimes = append(cloneTimes, timed(func() { b.ok(b.base, "clone", url, "goroot", filepath.Join(b.base, "c")) }))
		gitTimes = append(gitTimes, timed(func() { sh(t, "", "git", "clone", "-q", bare, filepath.Join(a.base, fmt.Sprintf("g%d", i))) }))
		gitNoLinkTimes = append(gitNoLinkTimes, timed(func() {
			sh(t, "", "git", "clone", "-q", "--no-hardlinks", bare, filepath.Join(a.base, fmt.Sprintf("n%d", i)))
		}))
	}
	fmt.Printf("\ntree: %d files (a copy of GOROOT/%s %s)\n", files, os.Getenv("CKPT_REMOTE_BENCH_TREE"), runtime.Version())
	fmt.Printf("| measurement | time |\n|---|---|\n")
	fmt.Printf("| ckpt first import (`ckpt status` on a fresh state dir) | %s |\n", importTime.Round(time.Millisecond))
	fmt.Printf("| ckpt push, first upload | %s |\n", pushTime.Round(time.Millisecond))
	fmt.Printf("| rclone copy (median of %d) | %s |\n", runs, median(rcloneTimes))
	fmt.Printf("| ckpt clone (median of %d) | %s |\n", runs, median(cloneTimes))
	fmt.Printf("| git clone from a local bare repository (median of %d) | %s |\n", runs, median(gitTimes))
	fmt.Printf("| git clone --no-hardlinks (median of %d) | %s |\n", runs, median(gitNoLinkTimes))
	fmt.Printf("ratios: push/rclone %.2f, clone/git clone %.2f\n",
		float64(pushTime)/float64(median(rcloneTimes)), float64(median(cloneTimes))/float64(median(gitTimes)))
}

func timed(fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2].Round(time.Millisecond)
}

func sh(t *testing.T, dir string, prog string, args ...string) string {
	return shEnv(t, dir, nil, prog, args...)
}

func shEnv(t *testing.T, dir string, env []string, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") { // AWS_CA_BUNDLE would make rclone load a CA for plain http
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", prog, args, err, out)
	}
	return string(out)
}
