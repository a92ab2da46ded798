package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// smallFSSize is the size of the file system the full-disk tests mount as
// the state directory: room for the store, its reserve and a write's
// headroom, small enough to fill in a moment.
const smallFSSize = 64 << 20

// TestStateDirFull is a state directory on a file system that fills up
// (tmpfs, and ext4 on a loop device where mkfs.ext4 is installed). Badger
// writes through memory mappings, where a full disk is a SIGBUS that kills
// the process. Want: no crash and no fault; a write (checkpoint) fails
// with one clear line and exit 1; status answers and names the condition;
// stored content stays readable; after the space is freed capture resumes
// by itself (the daemon) and the fingerprint equals a fresh scan; every
// checkpoint cut before still restores exactly.
func TestStateDirFull(t *testing.T) {
	for _, fstype := range []string{"tmpfs", "ext4"} {
		t.Run(fstype, func(t *testing.T) {
			bothModes(t, func(t *testing.T, m mode) {
				mnt := mountSmallFS(t, fstype)
				ws := newWorkspace(t, m, "CKPT_STATE_DIR="+filepath.Join(mnt, "state"))
				testStateDirFull(t, ws, mnt)
			})
		})
	}
}

func testStateDirFull(t *testing.T, ws *workspace, mnt string) {
	for i := range 10 {
		ws.write(fmt.Sprintf("src/f%d.txt", i), strings.Repeat(fmt.Sprintf("first version %d\n", i), 200))
	}
	ws.start()
	var cp1, cp2 checkpointJSON
	ws.ckptJSON(&cp1, "checkpoint", "-m", "one")
	tree1 := ws.tree()
	ws.write("src/f0.txt", "second version\n")
	ws.write("added.txt", "added before the disk filled\n")
	ws.ckptJSON(&cp2, "checkpoint", "-m", "two")
	tree2 := ws.tree()

	filler := fillFS(t, mnt)
	ws.write("src/f1.txt", "changed while the disk is full\n")
	ws.write("late.txt", "added while the disk is full\n")
	ws.rm("src/f2.txt")
	if ws.mode == daemon {
		time.Sleep(time.Second) // the daemon tries to capture, and must survive it
	}

	r := ws.ckptResult("checkpoint", "-m", "while full")
	assertFullLine(t, "checkpoint while full", r)
	r = ws.ckptResult("checkpoint", "--json")
	assertFullLine(t, "checkpoint --json while full", r)
	var e struct {
		Error string `json:"error"`
	}
	if err := decodeOne(r.stdout, &e); err != nil || !strings.HasPrefix(e.Error, "the state directory is full: ") {
		t.Errorf("checkpoint --json while full: want one {\"error\": \"the state directory is full: ...\"}, got (%v)\n%s", err, r)
	}

	var st struct {
		statusJSON
		StorageError string `json:"storage_error"`
	}
	ws.ckptJSON(&st, "status")
	if !strings.HasPrefix(st.StorageError, "the state directory is full: ") {
		t.Errorf("status --json while full: storage_error %q, want \"the state directory is full: ...\"", st.StorageError)
	}
	if out := ws.ckptOK("status"); !strings.Contains(out, "Storage: the state directory is full: ") {
		t.Errorf("status while full does not say the state directory is full:\n%s", out)
	}

	// Reads of stored content.
	var log logJSON
	ws.ckptJSON(&log, "log")
	if len(log.Checkpoints) < 3 || log.Checkpoints[0].CheckpointID != cp2.CheckpointID {
		t.Errorf("log while full: %+v, want cp2 %s newest", log.Checkpoints, cp2.CheckpointID)
	}
	var show showJSON
	ws.ckptJSON(&show, "show", cp2.CheckpointID)
	if out := ws.ckptOK("diff", cp1.CheckpointID, cp2.CheckpointID, "--patch"); !strings.Contains(out, "+second version") {
		t.Errorf("diff %s %s --patch while full lacks the change:\n%s", cp1.CheckpointID, cp2.CheckpointID, out)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	after := ws.tree()
	waitCaptured(t, ws, "after the space is freed",
		want("modified src/f0.txt", "added added.txt", "modified src/f1.txt", "added late.txt", "deleted src/f2.txt"))

	if ws.mode == daemon {
		// A daemon killed while the disk is full leaves its logs unclosed:
		// the embedded client that opens the store next must not fault.
		filler = fillFS(t, mnt)
		ws.stormKillDaemon()
		r := ws.ckptResult("status", "--json")
		assertNoFault(t, "status after kill -9 while full", r)
		if r.code != 0 {
			assertFullLine(t, "status after kill -9 while full", r)
		} else if err := decodeOne(r.stdout, &st); err != nil || st.StorageError == "" {
			t.Errorf("status after kill -9 while full: want storage_error set (%v)\n%s", err, r)
		}
		ws.ckptJSON(&log, "log")
		// A daemon started while the disk is full serves the workspace,
		// says why it cannot record, and catches up once space is back.
		ws.startDaemon()
		ws.ckptJSON(&st, "status")
		if !strings.HasPrefix(st.StorageError, "the state directory is full: ") {
			t.Errorf("status of a daemon started while full: storage_error %q", st.StorageError)
		}
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		waitCaptured(t, ws, "after the daemon's restart", nil)
	}
	var cp3 checkpointJSON
	ws.ckptJSON(&cp3, "checkpoint", "-m", "after")

	// Nothing acknowledged was lost.
	ws.ckptOK("restore", cp1.CheckpointID, "--exact", "--yes")
	assertTree(t, "restore of the checkpoint cut before the disk filled", tree1, ws.tree())
	ws.ckptOK("restore", cp2.CheckpointID, "--exact", "--yes")
	assertTree(t, "restore of the last checkpoint cut before the disk filled", tree2, ws.tree())
	ws.ckptOK("restore", cp3.CheckpointID, "--exact", "--yes")
	assertTree(t, "restore of the checkpoint cut after the space was freed", after, ws.tree())
}

// waitCaptured waits until status (the daemon's own, or an embedded
// scan) reports no storage error and the fingerprint of a fresh scan of
// the same tree; then, if changes is not nil, checks the drift.
func waitCaptured(t *testing.T, ws *workspace, what string, changes []string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		var s struct {
			stormStatusJSON
			StorageError string `json:"storage_error"`
		}
		ws.ckptJSON(&s, "status")
		fresh := ws.stormFreshScan(what)
		if s.StorageError == "" && s.Fingerprint == fresh.Fingerprint && s.Files == fresh.Files {
			if changes != nil {
				assertChanges(t, what, s.Changes, changes)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: capture did not resume within 90s: storage_error %q, fingerprint %s (fresh scan %s)%s",
				what, s.StorageError, s.Fingerprint, fresh.Fingerprint, ws.daemonLog())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// assertFullLine checks a command that hit the full state directory:
// exit 1 and one clear line on stderr, no crash.
func assertFullLine(t *testing.T, what string, r result) {
	t.Helper()
	assertNoFault(t, what, r)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "ckpt: the state directory is full: ") || !strings.Contains(lines[0], " MiB free at ") {
		t.Errorf("%s: want exit 1 and the one line \"ckpt: the state directory is full: N MiB free at ...\", got\n%s", what, r)
	}
}

func assertNoFault(t *testing.T, what string, r result) {
	t.Helper()
	for _, bad := range []string{"fatal error", "SIGBUS", "panic", "goroutine "} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("%s: crashed (%s)\n%s", what, bad, r)
		}
	}
}

// mountSmallFS mounts a smallFSSize file system of fstype ("tmpfs", or
// "ext4" on a loop device) in a new temporary directory, and unmounts it
// when the test ends. It skips the test when it cannot (not root, no
// mkfs.ext4, no loop devices).
func mountSmallFS(t *testing.T, fstype string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system as the state directory needs root")
	}
	dir, err := os.MkdirTemp("", "ckpt-full-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"-t", "tmpfs", "-o", fmt.Sprintf("size=%d", smallFSSize), "tmpfs", mnt}
	if fstype == "ext4" {
		mkfs, err := exec.LookPath("mkfs.ext4")
		if err != nil {
			t.Skip("mkfs.ext4 is not installed: the ext4 case cannot run")
		}
		img := filepath.Join(dir, "fs.img")
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, smallFSSize); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(mkfs, "-q", "-F", "-m", "0", img).CombinedOutput(); err != nil {
			t.Fatalf("mkfs.ext4: %v\n%s", err, out)
		}
		args = []string{"-o", "loop", img, mnt}
	}
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		if fstype == "ext4" {
			t.Skipf("cannot mount an ext4 image on a loop device here: %v: %s", err, out)
		}
		t.Fatalf("mount %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	// Registered before the workspace's cleanups, so it runs after them:
	// the daemon is stopped before the unmount.
	t.Cleanup(func() {
		var err error
		for range 50 {
			if err = syscall.Unmount(mnt, 0); err == nil || !errors.Is(err, syscall.EBUSY) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return mnt
}

// fillFS writes a file until the file system at mnt has no space left, and
// returns its path.
func fillFS(t *testing.T, mnt string) string {
	t.Helper()
	p := filepath.Join(mnt, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i) // not zeros: no file system may dedup or skip them
	}
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatal(err)
		}
	}
	for size := len(buf) / 2; size >= 512; size /= 2 {
		for {
			if _, err := f.Write(buf[:size]); err != nil {
				break
			}
		}
	}
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	return p
}
