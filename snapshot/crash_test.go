package snapshot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// The crash tests run the work that is to be interrupted in a child
// process: the test binary itself, re-executed with -test.run=TestCrashHelper
// and CKPT_CRASH_HELPER naming what to do. A restore is stopped by the
// production hooks (crashpoint.go: CKPT_TEST_CRASH_AFTER exits with status
// 3 after that many writes, CKPT_TEST_CRASH_AT at a named step; see
// crash_steps_test.go); a capture is stopped by kill -9.
const (
	envHelper = "CKPT_CRASH_HELPER" // restore | open | churn | update
	envRoot   = "CKPT_CRASH_ROOT"
	envState  = "CKPT_CRASH_STATE"
	envTarget = "CKPT_CRASH_TARGET"
	envFiles  = "CKPT_CRASH_FILES"
)

// TestCrashHelper is the child process of the crash tests; run directly it
// does nothing.
func TestCrashHelper(t *testing.T) {
	mode := os.Getenv(envHelper)
	if mode == "" {
		t.Skip("the crash tests' child process")
	}
	root, state := os.Getenv(envRoot), os.Getenv(envState)
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "crash helper: "+format+"\n", args...)
		os.Exit(1)
	}
	ws, err := Open(state, root, Options{LockTimeout: 10 * time.Second, Workers: 2})
	if err != nil {
		fail("open: %v", err)
	}
	switch mode {
	case "open":
		// Open finished an unfinished restore (or exited midway).
	case "restore":
		cp, err := ws.Checkpoint(os.Getenv(envTarget))
		if err != nil {
			fail("%v", err)
		}
		if _, err := ws.Restore(context.Background(), cp, RestoreOptions{}); err != nil {
			fail("restore: %v", err)
		}
	case "churn":
		crashChurn(ws, root, fail)
	case "update":
		if err := crashUpdate(ws); err != nil {
			fail("update: %v", err)
		}
	default:
		fail("unknown mode %q", mode)
	}
	ws.Close()
	fmt.Println("DONE")
	os.Exit(0)
}

// runHelper runs the child and returns its exit status and stdout.
func runCrashHelper(t *testing.T, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
	cmd.Env = append(crashChildEnv(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run child: %v", err)
	}
	if code != 0 && code != 3 {
		t.Fatalf("child exited %d: %s%s", code, out, stderr.String())
	}
	return code, string(out)
}

// childEnv is the environment without the variables the children read.
func crashChildEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CKPT_TEST_CRASH_") || strings.HasPrefix(kv, "CKPT_CRASH_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// ---- a restore stopped midway ----

// crashFixture is a workspace with a checkpoint (the restore's target,
// "after") and a working tree that differs from it in every way a restore
// handles ("before").
type crashFixture struct {
	root, state   string
	target        store.Checkpoint
	before, after mtree
	actions       int // paths the restore changes
	removals      int // of which removals
}

func newCrashFixture(t *testing.T) *crashFixture { return newCrashFixtureBulk(t, 0) }

// newCrashFixtureBulk adds bulk files that the restore rewrites, so that
// it writes more than one batch.
func newCrashFixtureBulk(t *testing.T, bulk int) *crashFixture {
	t.Helper()
	f := &crashFixture{root: t.TempDir(), state: t.TempDir()}
	after := mtree{}
	for i := range 30 {
		n := mfile(fmt.Sprintf("content of file %d\n", i))
		n.exec = i%5 == 0
		after[fmt.Sprintf("d%d/f%02d", i%4, i)] = n
	}
	after["d0/link-to-file"] = mlink("f00")
	after["d1/link-to-dir"] = mlink("../d2")
	after["gone/deep/a"] = mfile("a whole directory that the changes delete")
	after["gone/deep/b"] = mfile("b")
	after["top"] = mfile("top level")
	for i := range bulk {
		after[fmt.Sprintf("bulk/b%d/f%04d", i%10, i)] = mfile(fmt.Sprintf("bulk %d at the target\n", i))
	}
	writeMTree(t, f.root, after)
	ws, err := Open(f.state, f.root, Options{LockTimeout: time.Second, Workers: 2})
	mustNil(t, err)
	cp, _, err := ws.Import(context.Background(), modelWalk(f.root))
	mustNil(t, err)
	f.target, f.after = cp, after

	// The changes since: modified, deleted (also a whole directory), added
	// (also in new directories), exec bits, files and symlinks swapped, a
	// file where a directory was and the other way round.
	before := after.clone()
	for i := 0; i < 30; i += 3 {
		p := fmt.Sprintf("d%d/f%02d", i%4, i)
		n := before[p]
		n.data += "changed\n"
		before[p] = n
	}
	for _, p := range []string{"d1/f01", "d2/f10", "d3/f19", "gone/deep/a", "gone/deep/b"} {
		delete(before, p)
	}
	for i := range bulk {
		before[fmt.Sprintf("bulk/b%d/f%04d", i%10, i)] = mfile(fmt.Sprintf("bulk %d changed since\n", i))
	}
	for i := range 8 {
		before[fmt.Sprintf("new/n%d/file%d", i%3, i)] = mfile(fmt.Sprintf("new %d", i))
	}
	before["d2/f02"] = mnode{kind: store.File, data: before["d2/f02"].data, exec: true}
	before["d1/f05"] = mnode{kind: store.File, data: before["d1/f05"].data, exec: false}
	before["d0/link-to-file"] = mfile("was a symlink")
	before["d3/f07"] = mlink("../top")
	delete(before, "top")
	before["top/inside"] = mfile("a directory where a file was")
	delete(before, "d1/link-to-dir")
	before["d1/link-to-dir/x"] = mfile("a directory where a symlink was")
	for _, p := range sortedKeys(after) {
		if _, ok := before[p]; !ok {
			mustNil(t, os.RemoveAll(filepath.Join(f.root, p)))
		}
	}
	mustNil(t, os.RemoveAll(filepath.Join(f.root, "gone")))
	writeMTree(t, f.root, before)
	for p, n := range before {
		if n.kind == store.File && !n.exec {
			mustNil(t, os.Chmod(filepath.Join(f.root, p), 0o644))
		}
	}
	disk, _ := readMTree(t, f.root)
	if d := describeMDiff(disk, before); d != "" {
		t.Fatalf("fixture: %s", d)
	}
	mustNil(t, ws.Reconcile(context.Background(), modelWalk(f.root)))
	if bad := storeMismatch(ws, before, storedAll); len(bad) > 0 {
		t.Fatalf("fixture: the store does not match the disk: %v", bad)
	}
	mustNil(t, ws.Close())
	f.before = before
	for _, k := range diffMTrees(before, after) {
		f.actions++
		if k == store.Deleted {
			f.removals++
		}
	}
	return f
}

// checkHalfway: after a crash every path holds its before or its after
// version, never anything else (no half-written file), and no temp file
// is left.
func (f *crashFixture) checkHalfway(t *testing.T) (nBefore, nAfter int) {
	t.Helper()
	// A crash may leave the staged temp files of the batch it was in
	// (complete, under ckpt's internal names, never captured); the next
	// Open removes them, which checkFinished checks.
	disk, _ := readMTree(t, f.root)
	for p := range disk {
		if strings.HasPrefix(path.Base(p), InternalPrefix) {
			delete(disk, p)
		}
	}
	paths := map[string]bool{}
	for _, tr := range []mtree{disk, f.before, f.after} {
		for p := range tr {
			paths[p] = true
		}
	}
	for _, p := range sortedKeys(paths) {
		got, ok := disk[p]
		b, inB := f.before[p]
		a, inA := f.after[p]
		isB := ok == inB && got == b
		isA := ok == inA && got == a
		switch {
		case !isA && !isB:
			t.Errorf("after the crash %s is %v: neither its before (%v) nor its after (%v) version", p, got, b, a)
		case isA && isB:
		case isA:
			nAfter++
		default:
			nBefore++
		}
	}
	return nBefore, nAfter
}

// checkFinished opens the workspace (which finishes the restore) and checks
// the disk, the store, the current checkpoint, and that undo brings back
// the tree before the restore.
func (f *crashFixture) checkFinished(t *testing.T) {
	t.Helper()
	ws, err := Open(f.state, f.root, Options{LockTimeout: 5 * time.Second, Workers: 2})
	if err != nil {
		t.Fatalf("open after the crash: %v", err)
	}
	defer ws.Close()
	disk, strays := readMTree(t, f.root)
	if d := describeMDiff(disk, f.after); d != "" || len(strays) > 0 {
		t.Fatalf("after Open finished the restore the disk differs from the target:%s (strays %v)", d, strays)
	}
	checkNoIntent(t, ws)
	if bad := storeMismatch(ws, f.after, storedAll); len(bad) > 0 {
		t.Errorf("after the finished restore the store does not match the disk:\n  %s", strings.Join(bad, "\n  "))
	}
	if fp := ws.Fingerprint(); fp.Sum != f.target.Fingerprint || fp.Count != f.target.Files {
		t.Errorf("live fingerprint %v, the target's %x/%d", fp, f.target.Fingerprint, f.target.Files)
	}
	if cur, err := ws.Current(); err != nil || cur.ID != f.target.ID {
		t.Errorf("current checkpoint %s (%v), want the target %s", cur.ID, err, f.target.ID)
	}
	lr := f.lastRestore(t, ws)
	head := ws.Head()
	mustNil(t, ws.Reconcile(context.Background(), modelWalk(f.root)))
	if ws.Head() != head {
		t.Errorf("a scan after the finished restore journaled %d changes", ws.Head()-head)
	}
	f.checkUndo(t, ws, lr)
}

func (f *crashFixture) env(mode string, crashAfter int) []string {
	env := []string{envHelper + "=" + mode, envRoot + "=" + f.root, envState + "=" + f.state, envTarget + "=" + f.target.ID}
	if crashAfter > 0 {
		env = append(env, "CKPT_TEST_CRASH_AFTER="+strconv.Itoa(crashAfter))
	}
	return env
}

// TestCrashRestore stops an exact restore after k writes, at several k,
// then checks that nothing was half-written and that the next Open
// finishes the restore exactly.
func TestCrashRestore(t *testing.T) {
	probe := newCrashFixture(t)
	n, r := probe.actions, probe.removals
	points := []int{1, r, r + 1, (r + n) / 2, n - 1}
	if longTests() {
		points = points[:0]
		for k := 1; k < n; k++ {
			points = append(points, k)
		}
	}
	for _, k := range points {
		t.Run(fmt.Sprintf("after %d of %d writes", k, n), func(t *testing.T) {
			f := newCrashFixture(t)
			code, out := runCrashHelper(t, f.env("restore", k)...)
			if code != 3 {
				t.Fatalf("the child restore was not stopped (exit %d, %q)", code, out)
			}
			nb, na := f.checkHalfway(t)
			if na < k-1 || nb == 0 {
				t.Errorf("after %d writes: %d paths at their after version, %d at their before version", k, na, nb)
			}
			f.checkFinished(t)
		})
	}
}

// TestCrashRestoreLarge stops a restore that writes several batches in
// its second batch.
func TestCrashRestoreLarge(t *testing.T) {
	f := newCrashFixtureBulk(t, 600)
	k := f.removals + writeBatch + 100
	if code, out := runCrashHelper(t, f.env("restore", k)...); code != 3 {
		t.Fatalf("the child restore was not stopped (exit %d, %q)", code, out)
	}
	nb, na := f.checkHalfway(t)
	if na < k-f.removals || nb == 0 {
		t.Errorf("after %d of %d writes: %d paths at their after version, %d at their before version", k, f.actions, na, nb)
	}
	f.checkFinished(t)
}

// TestCrashRestoreTwice crashes the restore, then crashes again while the
// next Open is finishing it.
func TestCrashRestoreTwice(t *testing.T) {
	f := newCrashFixture(t)
	if code, _ := runCrashHelper(t, f.env("restore", f.actions*2/3)...); code != 3 {
		t.Fatalf("first child exited %d", code)
	}
	f.checkHalfway(t)
	if code, _ := runCrashHelper(t, f.env("open", f.actions/3)...); code != 3 {
		t.Fatalf("second child (finishing the restore in Open) exited %d", code)
	}
	f.checkHalfway(t)
	f.checkFinished(t)
}

// ---- kill -9 in the middle of a large capture ----

// churn imports the workspace and then, round after round, rewrites every
// file and reconciles and cuts. It prints "ACK round id seq" once a cut
// has returned, and "SCAN round" before each large capture.
func crashChurn(ws *Workspace, root string, fail func(string, ...any)) {
	n, _ := strconv.Atoi(os.Getenv(envFiles))
	ctx := context.Background()
	fmt.Println("SCAN 0")
	if _, _, err := ws.Import(ctx, modelWalk(root)); err != nil {
		fail("import: %v", err)
	}
	for round := 0; ; round++ {
		if round > 0 {
			for i := range n {
				if err := os.WriteFile(filepath.Join(root, churnPath(i)), []byte(churnContent(i, round)), 0o644); err != nil {
					fail("%v", err)
				}
			}
			fmt.Printf("SCAN %d\n", round)
			if err := ws.Reconcile(ctx, modelWalk(root)); err != nil {
				fail("reconcile: %v", err)
			}
		}
		cp, err := ws.Cut(ReasonManual, fmt.Sprint("round ", round), store.Attr{})
		if err != nil {
			fail("cut: %v", err)
		}
		fmt.Printf("ACK %d %s %d\n", round, cp.ID, cp.Seq)
		if round == 50 {
			return
		}
	}
}

func churnPath(i int) string { return fmt.Sprintf("d%02d/e%d/file%05d.txt", i%50, i%7, i) }
func churnContent(i, round int) string {
	return fmt.Sprintf("file %d, round %d\n%s", i, round, strings.Repeat("x", i%300))
}

type crashAck struct {
	round int
	id    string
	seq   uint64
}

// TestCrashKillDuringCapture kills the process in the middle of a large
// Import or Reconcile, then reopens: after a Reconcile the store equals a
// fresh scan, and every checkpoint acknowledged before the kill is there
// and holds what the workspace held when it was cut.
func TestCrashKillDuringCapture(t *testing.T) {
	nFiles := 3000
	kills := []struct {
		name  string
		round int // kill in the capture of this round (0 = the import)
	}{{"during import", 0}, {"during reconcile", 1}}
	if longTests() {
		nFiles = 5000
		for r := 2; r <= 6; r++ {
			kills = append(kills, struct {
				name  string
				round int
			}{fmt.Sprintf("during reconcile %d", r), r})
		}
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, kc := range kills {
		t.Run(kc.name, func(t *testing.T) {
			root, state := t.TempDir(), t.TempDir()
			for i := range nFiles {
				p := filepath.Join(root, churnPath(i))
				if i < 350 { // every directory churnPath uses
					mustNil(t, os.MkdirAll(filepath.Dir(p), 0o755))
				}
				mustNil(t, os.WriteFile(p, []byte(churnContent(i, 0)), 0o644))
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
			cmd.Env = append(crashChildEnv(), envHelper+"=churn", envRoot+"="+root, envState+"="+state, envFiles+"="+strconv.Itoa(nFiles))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			mustNil(t, err)
			mustNil(t, cmd.Start())
			// Every ACK the child printed before it died counts, also those
			// read after the kill.
			var acks []crashAck
			var took []time.Duration // from each SCAN to its ACK
			var scanAt time.Time
			sc := bufio.NewScanner(stdout)
			killed := false
			delay := time.Duration(rng.IntN(150)) * time.Millisecond // a capture of 3000 files takes about 100-200 ms here
			for sc.Scan() {
				fields := strings.Fields(sc.Text())
				switch {
				case len(fields) == 4 && fields[0] == "ACK":
					r, _ := strconv.Atoi(fields[1])
					seq, _ := strconv.ParseUint(fields[3], 10, 64)
					acks = append(acks, crashAck{r, fields[2], seq})
					took = append(took, time.Since(scanAt).Round(time.Millisecond))
				case len(fields) == 2 && fields[0] == "SCAN":
					scanAt = time.Now()
					if !killed && fields[1] == strconv.Itoa(kc.round) {
						time.Sleep(delay)
						mustNil(t, cmd.Process.Signal(syscall.SIGKILL))
						killed = true
					}
				}
			}
			cmd.Wait()
			if !killed {
				t.Fatalf("the child ended before the kill: %s", stderr.String())
			}
			t.Logf("killed %v into the capture of round %d; %d checkpoints acknowledged; earlier captures took %v", delay, kc.round, len(acks), took)

			ws, err := Open(state, root, Options{LockTimeout: 5 * time.Second, Workers: 2})
			if err != nil {
				t.Fatalf("open after kill -9: %v", err)
			}
			defer ws.Close()
			imported, err := ws.Imported()
			mustNil(t, err)
			t.Logf("after the kill: journal head %d, imported %v", ws.Head(), imported)
			if !imported && len(acks) > 0 {
				t.Errorf("not imported, yet %d checkpoints were acknowledged", len(acks))
			}
			if imported {
				mustNil(t, ws.Reconcile(context.Background(), modelWalk(root)))
			} else if _, _, err := ws.Import(context.Background(), modelWalk(root)); err != nil {
				t.Fatalf("import after kill -9: %v", err)
			}
			disk, strays := readMTree(t, root)
			if len(strays) > 0 {
				t.Errorf("strays: %v", strays)
			}
			if bad := storeMismatch(ws, disk, storedAll); len(bad) > 0 {
				t.Fatalf("after kill -9 and a reconcile the store differs from a fresh scan (%d paths):\n  %s",
					len(bad), strings.Join(bad[:min(len(bad), 20)], "\n  "))
			}
			// Every acknowledged checkpoint is there, at its seq, and holds
			// its round's contents.
			for _, a := range acks {
				cp, err := ws.Checkpoint(a.id)
				if err != nil {
					t.Errorf("checkpoint %s of round %d, acknowledged before the kill, is gone: %v", a.id, a.round, err)
					continue
				}
				if cp.Seq != a.seq || cp.Files != int64(nFiles) {
					t.Errorf("checkpoint %s: seq %d files %d, acknowledged at seq %d with %d files", a.id, cp.Seq, cp.Files, a.seq, nFiles)
				}
			}
			if len(acks) > 0 {
				last := acks[len(acks)-1]
				want := mtree{}
				for i := range nFiles {
					want[churnPath(i)] = mfile(churnContent(i, last.round))
				}
				cp, err := ws.Checkpoint(last.id)
				mustNil(t, err)
				if fp := mtreeFingerprint(want); cp.Fingerprint != fp.Sum {
					t.Errorf("checkpoint %s (round %d) has fingerprint %x, its tree %x", cp.ID, last.round, cp.Fingerprint, fp.Sum)
				}
				err = ws.Store().View(func(r *store.Reader) error {
					bad := 0
					for p, n := range want {
						st, err := r.StateAt(p, cp.Seq)
						if err != nil {
							return err
						}
						if !st.SameContent(mnodeState(n)) && bad < 5 {
							bad++
							t.Errorf("%s at checkpoint %s (round %d) is %+v, not that round's content", p, cp.ID, last.round, st)
						}
					}
					return nil
				})
				mustNil(t, err)
			}
		})
	}
}

// TestCrashRestoreTempFile: a restore killed (kill -9, power loss) between
// writing a temp file and renaming it leaves the temp file behind. The
// walker never captures it, so nothing else ever removes it: the Open that
// finishes the restore must.
func TestCrashRestoreTempFile(t *testing.T) {
	f := newCrashFixture(t)
	if code, _ := runCrashHelper(t, f.env("restore", f.removals+2)...); code != 3 {
		t.Fatalf("child exited %d", code)
	}
	// What the killed write would have left: a temp file next to a path
	// the restore writes, as apply names them.
	var dir string
	for _, p := range sortedKeys(diffMTrees(f.before, f.after)) {
		if _, ok := f.after[p]; ok && strings.Contains(p, "/") {
			dir = filepath.Dir(p)
			break
		}
	}
	stray := filepath.Join(f.root, dir, InternalPrefix+"tmp-0123456789abcdef")
	mustNil(t, os.WriteFile(stray, []byte("half of a fi"), 0o644))
	ws, err := Open(f.state, f.root, Options{LockTimeout: 5 * time.Second, Workers: 2})
	mustNil(t, err)
	ws.Close()
	if _, strays := readMTree(t, f.root); len(strays) > 0 {
		t.Errorf("the restore's temp files are still in the workspace after Open finished the restore: %v", strays)
	}
}

// checkNoIntent fails if a restore intent is still stored.
func checkNoIntent(t *testing.T, ws *Workspace) {
	t.Helper()
	err := ws.Store().View(func(r *store.Reader) error {
		_, err := r.Intent()
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the intent is still there after Open finished it (%v)", err)
	}
}

// lastRestore is the stored last restore, which must be the fixture's.
func (f *crashFixture) lastRestore(t *testing.T, ws *Workspace) store.LastRestore {
	t.Helper()
	var lr store.LastRestore
	err := ws.Store().View(func(r *store.Reader) (err error) {
		lr, err = r.LastRestore()
		return err
	})
	if err != nil || lr.TargetID != f.target.ID {
		t.Fatalf("last restore %+v (%v)", lr, err)
	}
	return lr
}

// checkUndo restores lr's guard and checks the tree from before the
// restore is back.
func (f *crashFixture) checkUndo(t *testing.T, ws *Workspace, lr store.LastRestore) {
	t.Helper()
	guard, err := ws.Checkpoint(lr.GuardID)
	if err != nil {
		t.Fatalf("guard: %v", err)
	}
	if _, err := ws.Restore(context.Background(), guard, RestoreOptions{}); err != nil {
		t.Fatalf("undo: %v", err)
	}
	disk, _ := readMTree(t, f.root)
	if d := describeMDiff(disk, f.before); d != "" {
		t.Errorf("undo did not bring back the tree before the restore:%s", d)
	}
}
