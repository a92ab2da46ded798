package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The daemon's "never miss" tests: the real ckptd and ckpt on real files,
// under bursts of changes made as fast as Go can make them. The truth each
// test compares the daemon with is a fresh scan: `ckpt status --json` in
// embedded mode with a new, empty state directory imports the tree as it is
// on disk, and its fingerprint and file count must equal the daemon's.
// CKPT_LONG=1 runs the storms at five times the size.

// stormSize is the storm's number of new directories (100 files each).
func stormSize() int {
	if stormLong() {
		return 1000
	}
	return 200
}

// TestStormNeverMiss: with the daemon watching, a checkpoint, then a storm
// of 20,000 files created in new nested directories, whole subtrees
// deleted, appends, directory renames; with no pause, ckpt status must
// equal a fresh scan and list exactly the changes; restore --exact of the
// pre-storm checkpoint must bring back the pre-storm tree byte for byte.
func TestStormNeverMiss(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	base := ws.stormBase(40, 20)
	ws.start()
	var cp checkpointJSON
	ws.ckptJSON(&cp, "checkpoint", "-m", "pre-storm")
	pre := ws.tree()

	spec := stormSpec{top: "storm", dirs: stormSize(), files: 100, workers: 4, base: base}
	var created atomic.Int64
	start := time.Now()
	if err := stormRun(ws.root, spec, &created); err != nil {
		t.Fatalf("the storm: %v", err)
	}
	t.Logf("storm: %d files written in %s", created.Load(), time.Since(start).Round(time.Millisecond))
	s := ws.stormDaemonStatus("after the storm")
	post := ws.tree()
	exp := stormExpected(pre, post)
	t.Logf("after the storm: %d paths on disk, %d expected changes", len(post), len(exp))
	stormAssertChanges(t, "ckpt status right after the storm", s.Changes, exp)
	if !s.Drifted {
		t.Errorf("ckpt status after the storm: drifted false")
	}
	ws.stormAssertFresh("after the storm", s)

	var r restoreJSON
	start = time.Now()
	ws.stormJSON(&r, nil, "restore", cp.CheckpointID, "--exact", "--yes")
	t.Logf("restore --exact of the pre-storm checkpoint took %s: %d restored, %d kept", time.Since(start).Round(time.Millisecond), len(r.Restored), len(r.Kept))
	stormAssertTree(t, "after restore --exact of the pre-storm checkpoint", pre, ws.tree())
	stormAssertChanges(t, "restore --exact: restored", r.Restored, stormInverse(exp))
	after := ws.stormDaemonStatus("after the restore")
	if after.CurrentCheckpointID != cp.CheckpointID || after.Drifted || len(after.Changes) != 0 {
		t.Errorf("after the restore: current %s (want %s), drifted %v, %d changes", after.CurrentCheckpointID, cp.CheckpointID, after.Drifted, len(after.Changes))
	}
	if after.Fingerprint != cp.Fingerprint || after.Files != cp.Files {
		t.Errorf("after the restore: fingerprint %s, %d files; the pre-storm checkpoint has %s, %d files", after.Fingerprint, after.Files, cp.Fingerprint, cp.Files)
	}
	ws.stormAssertFresh("after the restore", after)
}

// stormInverse turns the changes A -> B into the changes B -> A.
func stormInverse(changes []string) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		kind, p, _ := strings.Cut(c, " ")
		switch kind {
		case "added":
			kind = "deleted"
		case "deleted":
			kind = "added"
		}
		out = append(out, kind+" "+p)
	}
	slices.Sort(out)
	return out
}

// TestStormGitCheckout: a git repository in the workspace with two
// branches 3,000 files apart (1,000 modified, 1,000 deleted with their
// directories, 1,000 added in new nested directories); git checkout with
// the daemon watching, then ckpt status must list exactly those changes and
// equal a fresh scan; checking the first branch out again is no drift.
func TestStormGitCheckout(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	n := 1000
	if stormLong() {
		n = 5000
	}
	ws.write("README", "workspace\n")
	ws.mkdirAll("repo")
	git := func(args ...string) { ws.exec("git", append([]string{"-C", "repo"}, args...)...) }
	git("init", "-q")
	git("checkout", "-q", "-b", "main")
	file := func(kind string, i int) string {
		switch kind {
		case "mod":
			return fmt.Sprintf("repo/src/m%02d/f%04d.go", i/100, i)
		case "del":
			return fmt.Sprintf("repo/old/o%02d/x/f%04d.txt", i/100, i)
		case "same":
			return fmt.Sprintf("repo/same/s%02d/f%04d.txt", i/100, i)
		}
		return fmt.Sprintf("repo/new/n%02d/deep/er/f%04d.txt", i/100, i)
	}
	writeFile := func(rel, content string) {
		p := ws.path(rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		writeFile(file("mod", i), fmt.Sprintf("package m\n\n// version one of %d\n", i))
		writeFile(file("del", i), fmt.Sprintf("deleted on other %d\n", i))
		writeFile(file("same", i), fmt.Sprintf("same on both %d\n", i))
	}
	git("add", "-A")
	git("commit", "-q", "-m", "main")
	git("checkout", "-q", "-b", "other")
	for i := range n {
		writeFile(file("mod", i), fmt.Sprintf("package m\n\n// version TWO of %d\n", i))
		writeFile(file("new", i), fmt.Sprintf("added on other %d\n", i))
	}
	ws.rm("repo/old")
	git("add", "-A")
	git("commit", "-q", "-m", "other")
	git("checkout", "-q", "main")
	ws.start()
	first := ws.stormDaemonStatus("after the import")
	if first.Drifted || len(first.Changes) != 0 {
		t.Fatalf("right after the import: drifted %v, %d changes", first.Drifted, len(first.Changes))
	}
	pre := ws.tree()

	start := time.Now()
	git("checkout", "-q", "other")
	t.Logf("git checkout other took %s", time.Since(start).Round(time.Millisecond))
	s := ws.stormDaemonStatus("after git checkout other")
	exp := stormExpected(pre, ws.tree())
	if len(exp) != 3*n {
		t.Fatalf("the branches differ in %d files on disk, want %d", len(exp), 3*n)
	}
	got := map[string]string{}
	for _, c := range s.Changes {
		got[c.Path] = c.Kind
	}
	for i := 0; i < n; i += 97 { // a sample, named explicitly
		for _, w := range []struct{ kind, path string }{{"modified", file("mod", i)}, {"deleted", file("del", i)}, {"added", file("new", i)}} {
			if got[w.path] != w.kind {
				t.Errorf("after git checkout other: %s is %q in ckpt status, want %s", w.path, got[w.path], w.kind)
			}
		}
		if k, ok := got[file("same", i)]; ok {
			t.Errorf("after git checkout other: %s (the same on both branches) is %s", file("same", i), k)
		}
	}
	stormAssertChanges(t, "ckpt status after git checkout other", s.Changes, exp)
	ws.stormAssertFresh("after git checkout other", s)

	git("checkout", "-q", "main")
	back := ws.stormDaemonStatus("after git checkout main")
	stormAssertChanges(t, "ckpt status after git checkout main (back where the import was)", back.Changes, nil)
	if back.Drifted || back.Fingerprint != first.Fingerprint || back.Files != first.Files {
		t.Errorf("after git checkout main: drifted %v, fingerprint %s, %d files; at the import %s, %d files",
			back.Drifted, back.Fingerprint, back.Files, first.Fingerprint, first.Files)
	}
	ws.stormAssertFresh("after git checkout main", back)
}

// TestStormKill9: the daemon is killed with SIGKILL in the middle of a
// storm while checkpoints are being cut; the storm finishes, more edits
// are made while no daemon runs, the daemon is restarted. Then ckpt status
// must equal a fresh scan and list every change since the import, the
// edits made while it was down included; every checkpoint acknowledged
// before the kill must be in ckpt log with the fingerprint it was
// acknowledged with; and restore --exact of the pre-storm checkpoint must
// still bring back the pre-storm tree.
func TestStormKill9(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	base := ws.stormBase(40, 20)
	ws.write("down/modified.txt", "before\n")
	ws.write("down/deleted.txt", "deleted while down\n")
	ws.write("down/sametime.txt", "aaaa\n")
	ws.start()
	var cp checkpointJSON
	ws.ckptJSON(&cp, "checkpoint", "-m", "pre-storm")
	pre := ws.tree()

	spec := stormSpec{top: "storm", dirs: stormSize(), files: 100, workers: 3, base: base}
	total := int64(spec.dirs * spec.files)
	var created atomic.Int64
	stormDone := make(chan error, 1)
	start := time.Now()
	go func() { stormDone <- stormRun(ws.root, spec, &created) }()

	// Cut checkpoints through the daemon while the storm runs, until the
	// kill; remember every one the daemon acknowledged.
	var (
		killed   atomic.Bool
		acked    []checkpointJSON
		failures []string
		cpWG     sync.WaitGroup
	)
	cpWG.Go(func() {
		for i := 0; !killed.Load(); i++ {
			r, err := stormExec(ws.root, ws.env, stormTimeout(), ckptBin, "checkpoint", "-m", fmt.Sprintf("during %d", i), "--json")
			var c checkpointJSON
			switch {
			case err != nil:
				failures = append(failures, err.Error())
			case r.code == 0 && decodeOne(r.stdout, &c) == nil && c.CheckpointID != "":
				acked = append(acked, c)
			case !killed.Load():
				failures = append(failures, r.String())
			}
		}
	})

	for created.Load() < total/2 {
		select {
		case err := <-stormDone:
			stormDone <- err
			t.Fatalf("the storm ended before the kill (%d of %d files): %v", created.Load(), total, err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
	killed.Store(true)
	ws.stormKillDaemon()
	t.Logf("kill -9 after %s, at %d of %d files", time.Since(start).Round(time.Millisecond), created.Load(), total)
	if err := <-stormDone; err != nil {
		t.Fatalf("the storm: %v", err)
	}
	cpWG.Wait()
	t.Logf("storm done after %s; %d checkpoints acknowledged before the kill", time.Since(start).Round(time.Millisecond), len(acked))
	if len(failures) > 0 {
		t.Errorf("ckpt checkpoint failed while the daemon ran:\n%s", strings.Join(failures, "\n"))
	}

	// While no daemon runs.
	ws.write("down/modified.txt", "after\n")
	ws.rm("down/deleted.txt")
	ws.write("down/added/new.txt", "added while down\n")
	ws.rm("storm/w0/d0000") // a storm subtree, gone while down
	// Same size, and the old mtime put back (cp -p, rsync -t, tar x do
	// this): only the ctime or the inode tells.
	if fi, err := os.Stat(ws.path("down/sametime.txt")); err != nil {
		t.Fatal(err)
	} else {
		ws.write("down/sametime.txt", "bbbb\n")
		if err := os.Chtimes(ws.path("down/sametime.txt"), fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	want := stormExpected(pre, ws.tree())
	for _, w := range []string{"modified down/modified.txt", "deleted down/deleted.txt", "added down/added/new.txt", "modified down/sametime.txt"} {
		if !slices.Contains(want, w) {
			t.Fatalf("test bug: %q is not an expected change", w)
		}
	}

	start = time.Now()
	ws.stormStartDaemon()
	s := ws.stormDaemonStatus("after the restart")
	t.Logf("restart to first status: %s", time.Since(start).Round(time.Millisecond))
	if !stormAssertChanges(t, "ckpt status after the restart", s.Changes, want) {
		t.Logf("(the edits made while the daemon was down are among the expected changes)")
	}
	ws.stormAssertFresh("after the restart", s)
	if stale, _ := filepath.Glob(filepath.Join(ws.root, ".ckpt~*")); len(stale) > 0 {
		t.Errorf("after the restart, ckpt's own files left by the killed daemon are still in the workspace: %v", stale)
	}

	var log logJSON
	ws.stormJSON(&log, nil, "log")
	inLog := map[string]checkpointJSON{}
	for _, c := range log.Checkpoints {
		inLog[c.CheckpointID] = c
	}
	for _, c := range append([]checkpointJSON{cp}, acked...) {
		l, ok := inLog[c.CheckpointID]
		switch {
		case !ok:
			t.Errorf("checkpoint %s (%q), acknowledged before the kill, is not in ckpt log", c.CheckpointID, c.Message)
		case l.Fingerprint != c.Fingerprint || l.Files != c.Files || l.Message != c.Message:
			t.Errorf("checkpoint %s: acknowledged with fingerprint %s, %d files, message %q; ckpt log says %s, %d files, %q",
				c.CheckpointID, c.Fingerprint, c.Files, c.Message, l.Fingerprint, l.Files, l.Message)
		}
	}

	// A checkpoint acknowledged mid-storm, before the kill, is restorable
	// after it: the tree it brings back scans to the fingerprint and file
	// count it was acknowledged with.
	if len(acked) > 0 {
		mid := acked[len(acked)/5]
		var r restoreJSON
		start = time.Now()
		ws.stormJSON(&r, nil, "restore", mid.CheckpointID, "--exact", "--yes")
		t.Logf("restore --exact of %s (%q, cut during the storm) took %s", mid.CheckpointID, mid.Message, time.Since(start).Round(time.Millisecond))
		f := ws.stormFreshScan("after the restore of a checkpoint cut during the storm")
		if f.Fingerprint != mid.Fingerprint || f.Files != mid.Files {
			t.Errorf("restore --exact of %s: the tree scans to %s, %d files; the checkpoint was acknowledged with %s, %d files",
				mid.CheckpointID, f.Fingerprint, f.Files, mid.Fingerprint, mid.Files)
		}
	}

	var r restoreJSON
	start = time.Now()
	ws.stormJSON(&r, nil, "restore", cp.CheckpointID, "--exact", "--yes")
	t.Logf("restore --exact of the pre-storm checkpoint took %s", time.Since(start).Round(time.Millisecond))
	stormAssertTree(t, "after restore --exact of the pre-storm checkpoint", pre, ws.tree())
	ws.stormAssertFresh("after the restore", ws.stormDaemonStatus("after the restore"))
}

// TestStormMkdirBursts: `mkdir -p a$i/b/c && echo x > a$i/b/c/f` 500
// times with no pause from one shell, and the same from four goroutines:
// ckpt status lists every a$i/b/c/f as added, none missed.
func TestStormMkdirBursts(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	ws.write("README", "r\n")
	ws.start()
	start := time.Now()
	ws.sh(`i=1; while [ $i -le 500 ]; do mkdir -p a$i/b/c && echo x > a$i/b/c/f; i=$((i+1)); done`)
	t.Logf("sh burst: %s", time.Since(start).Round(time.Millisecond))
	var exp []string
	for i := 1; i <= 500; i++ {
		exp = append(exp, fmt.Sprintf("added a%d/b/c/f", i))
	}
	s := ws.stormDaemonStatus("after the sh burst")
	stormAssertChanges(t, "ckpt status after 500 mkdir -p bursts from sh", s.Changes, exp)

	var wg sync.WaitGroup
	errs := make([]error, 4)
	start = time.Now()
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < 500; i += 4 {
				dir := filepath.Join(ws.root, fmt.Sprintf("g%d", i), "b", "c")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					errs[w] = err
					return
				}
				if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x\n"), 0o644); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	t.Logf("Go burst (4 goroutines): %s", time.Since(start).Round(time.Millisecond))
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 500 {
		exp = append(exp, fmt.Sprintf("added g%d/b/c/f", i))
	}
	slices.Sort(exp)
	s = ws.stormDaemonStatus("after the Go burst")
	stormAssertChanges(t, "ckpt status after 500 more MkdirAll bursts from four goroutines", s.Changes, exp)
	ws.stormAssertFresh("after the bursts", s)
}

// stormDiffJSON is `ckpt diff --patch --json`.
type stormDiffJSON struct {
	CheckpointID     string `json:"checkpoint_id"`
	PrevCheckpointID string `json:"prev_checkpoint_id"`
	Files            []struct {
		Path   string `json:"path"`
		Kind   string `json:"kind"`
		Patch  string `json:"patch"`
		Binary bool   `json:"binary"`
	} `json:"files"`
}

// TestStormWriteThenStatus: `echo $i > f; ckpt status --json` 100 times in
// a row: every status lists f, with a new fingerprint each time, and ckpt
// diff --patch shows exactly the content $i (the first ten keep the size
// and most land in the same second: only the racy-timestamp rule or the
// events catch them). Also with f saved the way editors do: a temporary
// file renamed over it.
func TestStormWriteThenStatus(t *testing.T) {
	requireDaemon(t)
	for _, tc := range []struct{ name, script string }{
		{"echo", "echo %d > f"},
		{"rename-over", "echo %d > .f.tmp && mv .f.tmp f"},
	} {
		t.Run(tc.name, func(t *testing.T) { stormWriteThenStatus(t, tc.script) })
	}
}

func stormWriteThenStatus(t *testing.T, script string) {
	ws := newWorkspace(t, daemon)
	ws.write("base.txt", "base\n")
	ws.start()
	seen := map[string]int{}
	start := time.Now()
	for i := range 100 {
		ws.sh(fmt.Sprintf(script, i))
		var s stormStatusJSON
		ws.stormJSON(&s, nil, "status")
		if !s.Daemon.Running {
			t.Fatalf("iteration %d: ckpt status not answered by the daemon", i)
		}
		if !stormAssertChanges(t, fmt.Sprintf("iteration %d: ckpt status", i), s.Changes, []string{"added f"}) {
			t.FailNow()
		}
		if j, ok := seen[s.Fingerprint]; ok {
			t.Fatalf("iteration %d: fingerprint %s is iteration %d's: the new content of f was not seen", i, s.Fingerprint, j)
		}
		seen[s.Fingerprint] = i
		var d stormDiffJSON
		ws.stormJSON(&d, nil, "diff", "--patch")
		if len(d.Files) != 1 || d.Files[0].Path != "f" {
			t.Fatalf("iteration %d: ckpt diff --patch lists %+v, want only f", i, d.Files)
		}
		var plus []string
		for _, l := range strings.Split(d.Files[0].Patch, "\n") {
			if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
				plus = append(plus, l)
			}
		}
		if w := fmt.Sprintf("+%d", i); !slices.Equal(plus, []string{w}) {
			t.Fatalf("iteration %d: ckpt diff --patch of f adds %q, want [%q]; patch:\n%s", i, plus, w, d.Files[0].Patch)
		}
	}
	t.Logf("100 write+status+diff rounds: %s", time.Since(start).Round(time.Millisecond))
}

// TestStormQueueOverflow: a daemon with a 64-event queue (CKPT_QUEUE_SIZE)
// overflows in a storm; it must say so (daemon.overflows, a re-walk) and
// still equal a fresh scan, with exactly the changes of the storm.
func TestStormQueueOverflow(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon, "CKPT_QUEUE_SIZE=64")
	base := ws.stormBase(20, 20)
	ws.start()
	s0 := ws.stormDaemonStatus("after the import")
	pre := ws.tree()
	// Half the size of the other storms: it overflows all the same.
	spec := stormSpec{top: "storm", dirs: stormSize() / 2, files: 100, workers: 4, base: base}
	var created atomic.Int64
	start := time.Now()
	if err := stormRun(ws.root, spec, &created); err != nil {
		t.Fatalf("the storm: %v", err)
	}
	t.Logf("storm: %d files written in %s", created.Load(), time.Since(start).Round(time.Millisecond))
	s := ws.stormDaemonStatus("after the storm")
	stormAssertChanges(t, "ckpt status after the storm", s.Changes, stormExpected(pre, ws.tree()))
	ws.stormAssertFresh("after the storm", s)
	if s.Daemon.Overflows == 0 || s.Daemon.Rewalks <= s0.Daemon.Rewalks {
		t.Errorf("a storm through a 64-event queue: daemon.overflows %d, daemon.rewalks %d (%d before the storm); want an overflow and a re-walk counted",
			s.Daemon.Overflows, s.Daemon.Rewalks, s0.Daemon.Rewalks)
	}
}

// TestStormDirRenames: directories renamed right after they were made and
// written into at their new path at once (inotify names a moved watch by
// its old path), swapped, moved out of the workspace and written into
// there, moved in from outside; then, after a status, every renamed
// directory is written into again. Each status must list exactly the
// changes on disk and equal a fresh scan.
func TestStormDirRenames(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	ws.write("README", "r\n")
	for i := range 20 {
		ws.write(fmt.Sprintf("swap/a%d/f", i), fmt.Sprintf("a%d\n", i))
		ws.write(fmt.Sprintf("swap/b%d/f", i), fmt.Sprintf("b%d\n", i))
		ws.write(fmt.Sprintf("out/o%d/sub/f", i), fmt.Sprintf("o%d\n", i))
	}
	ws.start()
	pre := ws.tree()
	abs := func(rel string) string { return ws.path(rel) }
	outside := func(rel string) string { return filepath.Join(ws.outside, filepath.FromSlash(rel)) }
	n := 200
	if stormLong() {
		n = 2000
	}
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	wr := func(p, content string) { check(os.WriteFile(p, []byte(content), 0o644)) }

	start := time.Now()
	for i := range n { // made, renamed, written into at the new path
		check(os.MkdirAll(abs(fmt.Sprintf("r/r%d/sub", i)), 0o755))
		wr(abs(fmt.Sprintf("r/r%d/sub/f1", i)), "one\n")
		check(os.Rename(abs(fmt.Sprintf("r/r%d", i)), abs(fmt.Sprintf("r/s%d", i))))
		wr(abs(fmt.Sprintf("r/s%d/sub/f2", i)), "two\n")
		check(os.MkdirAll(abs(fmt.Sprintf("r/s%d/sub/new", i)), 0o755))
		wr(abs(fmt.Sprintf("r/s%d/sub/new/f3", i)), "three\n")
		if i%2 == 0 { // a nested directory moved to another parent
			check(os.Rename(abs(fmt.Sprintf("r/s%d/sub", i)), abs(fmt.Sprintf("r/t%d", i))))
			wr(abs(fmt.Sprintf("r/t%d/f4", i)), "four\n")
		}
	}
	for i := range 20 { // swapped: a -> tmp, b -> a, tmp -> b, then written
		a, b, tmp := abs(fmt.Sprintf("swap/a%d", i)), abs(fmt.Sprintf("swap/b%d", i)), abs(fmt.Sprintf("swap/tmp%d", i))
		check(os.Rename(a, tmp))
		check(os.Rename(b, a))
		check(os.Rename(tmp, b))
		wr(filepath.Join(a, "g"), "written after the swap\n")
	}
	check(os.MkdirAll(outside("in"), 0o755))
	for i := range 20 { // out of the workspace, and written into there
		check(os.Rename(abs(fmt.Sprintf("out/o%d", i)), outside(fmt.Sprintf("o%d", i))))
		wr(outside(fmt.Sprintf("o%d/sub/g", i)), "outside now\n")
		// in from outside, with content made there
		check(os.MkdirAll(outside(fmt.Sprintf("in/i%d/deep", i)), 0o755))
		wr(outside(fmt.Sprintf("in/i%d/deep/f", i)), "made outside\n")
		check(os.Rename(outside(fmt.Sprintf("in/i%d", i)), abs(fmt.Sprintf("in%d", i))))
		wr(abs(fmt.Sprintf("in%d/deep/g", i)), "written inside\n")
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	t.Logf("renames: %s", time.Since(start).Round(time.Millisecond))
	s := ws.stormDaemonStatus("after the renames")
	stormAssertChanges(t, "ckpt status after the renames", s.Changes, stormExpected(pre, ws.tree()))
	ws.stormAssertFresh("after the renames", s)

	// The renames are settled: every renamed directory is written into
	// again, and the directories moved out are written into once more.
	for i := range n {
		if i%2 == 0 {
			wr(abs(fmt.Sprintf("r/t%d/new/f5", i)), "five\n")
			wr(abs(fmt.Sprintf("r/t%d/f1", i)), "one, changed\n")
			wr(abs(fmt.Sprintf("r/s%d/f6", i)), "six\n")
		} else {
			wr(abs(fmt.Sprintf("r/s%d/sub/new/f5", i)), "five\n")
			wr(abs(fmt.Sprintf("r/s%d/sub/f1", i)), "one, changed\n")
		}
	}
	for i := range 20 {
		wr(abs(fmt.Sprintf("swap/a%d/f", i)), "changed after the swap\n")
		wr(abs(fmt.Sprintf("swap/b%d/h", i)), "new after the swap\n")
		wr(outside(fmt.Sprintf("o%d/sub/f", i)), "changed outside\n")
		wr(abs(fmt.Sprintf("in%d/deep/f", i)), "changed inside\n")
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	s = ws.stormDaemonStatus("after writing into the renamed directories")
	stormAssertChanges(t, "ckpt status after writing into the renamed directories", s.Changes, stormExpected(pre, ws.tree()))
	ws.stormAssertFresh("after writing into the renamed directories", s)
}

// TestStormCheckpointBarrier: checkpoints cut while four goroutines create
// files as fast as they can are exact (DESIGN's sync barrier): a
// checkpoint holds every file written before `ckpt checkpoint` started, in
// full, and none begun after it was acknowledged. Checked by the file
// counts in the acknowledgements, and by restoring some of the
// checkpoints with --exact and reading the tree. Also with a 64-event
// queue, where the storm overflows it and checkpoints wait for re-walks.
func TestStormCheckpointBarrier(t *testing.T) {
	requireDaemon(t)
	t.Run("default-queue", func(t *testing.T) { stormCheckpointBarrier(t) })
	t.Run("tiny-queue", func(t *testing.T) { stormCheckpointBarrier(t, "CKPT_QUEUE_SIZE=64") })
}

func stormCheckpointBarrier(t *testing.T, env ...string) {
	ws := newWorkspace(t, daemon, env...)
	ws.write("README", "r\n")
	ws.start()
	const workers, perDir = 4, 100
	per := 2000 // files per worker
	if stormLong() {
		per = 12500
	}
	name := func(w, m int) string { return fmt.Sprintf("storm/w%d/d%03d/f%03d", w, m/perDir, m%perDir) }
	content := func(w, m int) string { return fmt.Sprintf("worker %d file %d\n", w, m) }
	var done [workers]atomic.Int64
	counts := func() (c [workers]int64) {
		for w := range workers {
			c[w] = done[w].Load()
		}
		return c
	}
	type ack struct {
		cp     checkpointJSON
		c0, c1 [workers]int64 // files done before the command, after its answer
	}
	var (
		acks    []ack
		stop    atomic.Bool
		cpErr   error
		wg, cpw sync.WaitGroup
		errs    [workers]error
	)
	cpw.Go(func() {
		for i := 0; !stop.Load(); i++ {
			c0 := counts()
			r, err := stormExec(ws.root, ws.env, stormTimeout(), ckptBin, "checkpoint", "-m", fmt.Sprintf("during %d", i), "--json")
			c1 := counts()
			var c checkpointJSON
			if err == nil && (r.code != 0 || decodeOne(r.stdout, &c) != nil) {
				err = fmt.Errorf("ckpt checkpoint during the storm:\n%s", r)
			}
			if err != nil {
				cpErr = err
				return
			}
			acks = append(acks, ack{c, c0, c1})
		}
	})
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for m := range per {
				if m%perDir == 0 {
					if errs[w] = os.MkdirAll(filepath.Dir(ws.path(name(w, m))), 0o755); errs[w] != nil {
						return
					}
				}
				if errs[w] = os.WriteFile(ws.path(name(w, m)), []byte(content(w, m)), 0o644); errs[w] != nil {
					return
				}
				done[w].Add(1)
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	cpw.Wait()
	if err := errors.Join(append(errs[:], cpErr)...); err != nil {
		t.Fatal(err)
	}
	t.Logf("storm of %d files: %s, %d checkpoints cut during it", workers*per, time.Since(start).Round(time.Millisecond), len(acks))
	if len(acks) < 3 {
		t.Fatalf("only %d checkpoints were cut during the storm", len(acks))
	}
	sum := func(c [workers]int64) (n int64) {
		for _, x := range c {
			n += x
		}
		return n
	}
	for _, a := range acks {
		// README, plus at least every file done before, at most every file
		// done after and one in flight per worker.
		if lo, hi := 1+sum(a.c0), 1+sum(a.c1)+workers; a.cp.Files < lo || a.cp.Files > hi {
			t.Errorf("checkpoint %s (%q): %d files; %d were written before ckpt checkpoint started and %d when it answered",
				a.cp.CheckpointID, a.cp.Message, a.cp.Files, lo-1, hi-1-workers)
		}
	}
	s := ws.stormDaemonStatus("after the storm")
	ws.stormAssertFresh("after the storm", s)

	for _, a := range []ack{acks[len(acks)/2], acks[1]} { // shrinking: restore deletes
		var r restoreJSON
		start := time.Now()
		ws.stormJSON(&r, nil, "restore", a.cp.CheckpointID, "--exact", "--yes")
		t.Logf("restore --exact of %s (%q, %d files) took %s", a.cp.CheckpointID, a.cp.Message, a.cp.Files, time.Since(start).Round(time.Millisecond))
		got := ws.tree()
		var bad []string
		files := 0
		for w := range workers {
			for m := range per {
				n, ok := got[name(w, m)]
				if ok {
					files++
				}
				switch {
				case int64(m) < a.c0[w] && (!ok || n.Content != content(w, m)):
					bad = append(bad, fmt.Sprintf("%s: %v %s, written before the checkpoint", name(w, m), ok, n))
				case int64(m) > a.c1[w] && ok:
					bad = append(bad, fmt.Sprintf("%s: present, begun after the checkpoint was acknowledged", name(w, m)))
				case ok && n.Content != content(w, m) && n.Content != "":
					bad = append(bad, fmt.Sprintf("%s: %s, neither its content nor empty", name(w, m), n))
				}
			}
		}
		if int64(files)+1 != a.cp.Files {
			bad = append(bad, fmt.Sprintf("%d files restored, the checkpoint says %d", files+1, a.cp.Files))
		}
		for p, n := range got {
			if n.Kind != "dir" && p != "README" && !strings.HasPrefix(p, "storm/") {
				bad = append(bad, p+": unexpected")
			}
		}
		if len(bad) > 0 {
			if len(bad) > 30 {
				bad = append(bad[:30], fmt.Sprintf("... and %d more", len(bad)-30))
			}
			t.Errorf("after restore --exact of %s (cut with %v files done per worker before, %v after):\n  %s", a.cp.CheckpointID, a.c0, a.c1, strings.Join(bad, "\n  "))
		}
		ws.stormAssertFresh("after the restore", ws.stormDaemonStatus("after the restore"))
	}
}

// TestStormKill9DuringImport: the daemon is killed with SIGKILL while it
// imports a 5,000-file workspace for the first time, at two moments;
// the restarted daemon must finish the import: ckpt status equals a fresh
// scan, with no drift (nothing changed on disk since the import began).
func TestStormKill9DuringImport(t *testing.T) {
	requireDaemon(t)
	for _, after := range []time.Duration{0, 150 * time.Millisecond} {
		t.Run(fmt.Sprintf("kill-after-%s", after), func(t *testing.T) {
			ws := newWorkspace(t, daemon)
			for d := range stormSize() / 4 {
				dir := ws.path(fmt.Sprintf("tree/d%03d/x", d))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for f := range 100 {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), []byte(fmt.Sprintf("%d %d\n", d, f)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			start := time.Now()
			ws.stormStartDaemon()
			time.Sleep(after)
			ws.stormKillDaemon()
			t.Logf("killed %s after the start", time.Since(start).Round(time.Millisecond))
			ws.stormStartDaemon()
			ws.waitImported() // status answers during the import: wait for its end
			s := ws.stormDaemonStatus("after the restart")
			if s.Drifted || len(s.Changes) != 0 || s.CurrentCheckpointID == "" {
				t.Errorf("after the restart: current checkpoint %q, drifted %v, %d changes (e.g. %s); want the import finished, no drift",
					s.CurrentCheckpointID, s.Drifted, len(s.Changes), fmtList(kinds(s.Changes[:min(5, len(s.Changes))])))
			}
			ws.stormAssertFresh("after the restart", s)
			var log logJSON
			ws.stormJSON(&log, nil, "log")
			if len(log.Checkpoints) == 0 || log.Checkpoints[len(log.Checkpoints)-1].Reason != "initial" || log.Checkpoints[len(log.Checkpoints)-1].Files != s.Files {
				t.Errorf("ckpt log after the restart: %+v; want the oldest an initial checkpoint with all %d files", log.Checkpoints, s.Files)
			}
		})
	}
}

// TestStormIgnoreRules: a storm that writes ignored and captured files,
// adds a nested .gitignore (with a negation) in a new directory, and at
// the end edits the top .gitignore so that a whole directory of 2,000
// files stops being ignored. The daemon must agree with a fresh scan, and
// its changes with an embedded-mode client that imported the pre-storm
// tree into its own state directory and reconciles by scanning.
func TestStormIgnoreRules(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	ws.write(".gitignore", "build/\n*.log\n")
	for i := range 100 {
		ws.write(fmt.Sprintf("src/f%03d.txt", i), fmt.Sprintf("src %d\n", i))
		ws.write(fmt.Sprintf("build/old/f%03d.o", i), "object\n")
	}
	ws.write("app.log", "log\n")
	ws.start()
	embeddedEnv := []string{"CKPT_STATE_DIR=" + filepath.Join(ws.base, "embedded"), "CKPT_SOCKET=" + filepath.Join(ws.base, "embedded", "none.sock")}
	var e0 stormStatusJSON
	ws.stormJSON(&e0, embeddedEnv, "status")
	s0 := ws.stormDaemonStatus("after the import")
	if e0.Fingerprint != s0.Fingerprint || e0.Files != s0.Files {
		t.Fatalf("the imports differ: embedded %s, %d files; daemon %s, %d files", e0.Fingerprint, e0.Files, s0.Fingerprint, s0.Files)
	}

	var wg sync.WaitGroup
	errs := make([]error, 3)
	write := func(rel, content string) error {
		if err := os.MkdirAll(filepath.Dir(ws.path(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(ws.path(rel), []byte(content), 0o644)
	}
	start := time.Now()
	wg.Go(func() { // ignored for now: build/
		for i := range 2000 {
			if errs[0] = write(fmt.Sprintf("build/out/d%02d/f%04d.o", i/100, i), fmt.Sprintf("object %d\n", i)); errs[0] != nil {
				return
			}
		}
	})
	wg.Go(func() { // logs, ignored everywhere, next to captured files
		for i := range 1000 {
			if errs[1] = write(fmt.Sprintf("logs/d%02d/f%04d.log", i/100, i), "log\n"); errs[1] != nil {
				return
			}
			if errs[1] = write(fmt.Sprintf("logs/d%02d/f%04d.txt", i/100, i), "text\n"); errs[1] != nil {
				return
			}
		}
	})
	wg.Go(func() { // a nested .gitignore arrives with its directory
		for d := range 20 {
			dir := fmt.Sprintf("src/gen/d%02d", d)
			if d%2 == 0 {
				if errs[2] = write(dir+"/.gitignore", "*.txt\n!keep.txt\n"); errs[2] != nil {
					return
				}
			}
			for i := range 50 {
				if errs[2] = write(fmt.Sprintf("%s/f%02d.txt", dir, i), "gen\n"); errs[2] != nil {
					return
				}
			}
			if errs[2] = write(dir+"/keep.txt", "keep\n"); errs[2] != nil {
				return
			}
			if d == 15 { // a rule added to a directory that already has files
				if errs[2] = write("src/gen/d01/.gitignore", "f0*.txt\n"); errs[2] != nil {
					return
				}
			}
		}
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws.path(".gitignore"), []byte("*.log\n"), 0o644); err != nil { // build/ no longer ignored
		t.Fatal(err)
	}
	t.Logf("storm: %s", time.Since(start).Round(time.Millisecond))
	s := ws.stormDaemonStatus("after the storm")
	var e stormStatusJSON
	ws.stormJSON(&e, embeddedEnv, "status")
	if e.Daemon.Running {
		t.Fatal("the embedded client reached the daemon")
	}
	var ew []string
	for _, c := range e.Changes {
		ew = append(ew, c.Kind+" "+c.Path)
	}
	slices.Sort(ew)
	t.Logf("embedded (reconcile by scanning): %d files, %d changes, fingerprint %s", e.Files, len(e.Changes), e.Fingerprint)
	stormAssertChanges(t, "the daemon's changes against the embedded client's", s.Changes, ew)
	got := map[string]bool{}
	for _, c := range s.Changes {
		got[c.Kind+" "+c.Path] = true
	}
	for _, w := range []string{"added build/out/d00/f0000.o", "added build/old/f000.o", "added src/gen/d00/keep.txt", "added src/gen/d01/f10.txt", "added logs/d00/f0000.txt", "modified .gitignore"} {
		if !got[w] {
			t.Errorf("ckpt status after the storm does not list %q", w)
		}
	}
	for _, w := range []string{"added src/gen/d00/f00.txt", "added logs/d00/f0000.log", "added src/gen/d01/f00.txt"} {
		if got[w] {
			t.Errorf("ckpt status after the storm lists the ignored %q", w)
		}
	}
	ws.stormAssertFresh("after the storm", s)
}
