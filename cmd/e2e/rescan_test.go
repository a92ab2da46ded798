package e2e

import (
	"os"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mmapWrite writes data at the start of rel through a MAP_SHARED mapping,
// after closing the file, then msyncs and unmaps: the kernel raises no
// inotify event for any of it (only a write(2) raises IN_MODIFY).
func (ws *workspace) mmapWrite(rel, data string) {
	ws.t.Helper()
	f, err := os.OpenFile(ws.path(rel), os.O_RDWR, 0)
	if err != nil {
		ws.t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, len(data), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		ws.t.Fatalf("mmap %s: %v", rel, err)
	}
	copy(m, data)
	if err := unix.Msync(m, unix.MS_SYNC); err != nil {
		ws.t.Fatal(err)
	}
	if err := unix.Munmap(m); err != nil {
		ws.t.Fatal(err)
	}
}

// TestRescanFindsWritesThroughAMapping: a write through a shared memory
// mapping after the file was closed raises no file-system event, so the
// daemon's watcher never hears of it. `status --rescan` and
// `checkpoint --rescan` scan the whole workspace first (stat every file,
// read what differs: the mapping's write moved the file's mtime) and see
// it, in both modes.
func TestRescanFindsWritesThroughAMapping(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("data.bin", "hello world\n")
		ws.write("other", "o\n")
		ws.start()

		ws.mmapWrite("data.bin", "HELLO")
		if ws.read("data.bin") != "HELLO world\n" {
			t.Fatalf("the write through the mapping did not land: %q", ws.read("data.bin"))
		}
		if m == daemon {
			// The gap --rescan closes (nothing reports the write).
			t.Logf("plain status in daemon mode: %s", fmtList(kinds(ws.status().Changes)))
		}
		var s statusJSON
		ws.ckptJSON(&s, "status", "--rescan")
		assertChanges(t, "status --rescan", s.Changes, want("modified data.bin"))

		ws.mmapWrite("data.bin", "howdy")
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint", "--rescan", "-m", "after mmap")
		var sh showJSON
		ws.ckptJSON(&sh, "show", cp.CheckpointID)
		assertChanges(t, "show of the checkpoint cut with --rescan", sh.Changes, want("modified data.bin"))
		var d diffJSON
		ws.ckptJSON(&d, "diff", cp.CheckpointID)
		assertChanges(t, "diff from that checkpoint to the disk", d.Files, want())

		var r restoreJSON
		ws.ckptJSON(&r, "restore", s.CurrentCheckpointID, "--exact", "--yes")
		if got := ws.read("data.bin"); got != "hello world\n" {
			t.Errorf("restore --exact to before the mapping's writes: data.bin is %q", got)
		}
		if s := ws.status(); s.Drifted || len(s.Changes) > 0 {
			t.Errorf("status after restore --exact: drifted %v, changes %s", s.Drifted, fmtList(kinds(s.Changes)))
		}

		// Bad input: --rescan takes no value.
		if r := ws.ckptResult("status", "--rescan=maybe"); r.code != 2 {
			t.Errorf("status --rescan=maybe: exit %d, want 2\n%s", r.code, r)
		}
	})
}

// TestPeriodicRescanFindsWritesThroughAMapping: with no command asking,
// the daemon's periodic re-walk (rescan_interval) records a write through
// a shared mapping on its own.
func TestPeriodicRescanFindsWritesThroughAMapping(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon, "CKPT_RESCAN_INTERVAL=500ms")
	ws.write("data.bin", "hello world\n")
	ws.start()
	ws.mmapWrite("data.bin", "HELLO")
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := ws.status()
		if slices.Equal(kinds(s.Changes), want("modified data.bin")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("15s after a write through a mapping, with rescan_interval 500ms: status lists %s, want modified data.bin%s",
				fmtList(kinds(s.Changes)), ws.daemonLog())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRescanReadsFilesMappedForWriting: while a process holds a shared
// writable mapping, a write to a page it wrote before (still dirty)
// changes the file without moving any stat field, so a stat scan cannot
// see it. --rescan also reads every workspace file that a process has
// mapped shared and writable (/proc/PID/maps), in both modes.
func TestRescanReadsFilesMappedForWriting(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("data.bin", "hello world\n")
		ws.start()
		f, err := os.OpenFile(ws.path("data.bin"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := unix.Mmap(int(f.Fd()), 0, 12, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Munmap(mem)

		copy(mem, "HELLO") // the write fault moves the mtime
		// Date it back, out of ckpt's racy window: its stat is trusted.
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(ws.path("data.bin"), old, old); err != nil {
			t.Fatal(err)
		}
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint", "--rescan")
		var before unix.Stat_t
		if err := unix.Lstat(ws.path("data.bin"), &before); err != nil {
			t.Fatal(err)
		}
		copy(mem, "howdy") // a dirty page: no fault, no new mtime
		var after unix.Stat_t
		if err := unix.Lstat(ws.path("data.bin"), &after); err != nil {
			t.Fatal(err)
		}
		if before.Mtim != after.Mtim || before.Ctim != after.Ctim || before.Size != after.Size {
			t.Skip("this kernel moved the stat on a write to a dirty mapped page: no gap to close here")
		}
		var d diffJSON
		ws.ckptJSON(&d, "diff", cp.CheckpointID)
		t.Logf("without --rescan, diff from the checkpoint lists %s", fmtList(kinds(d.Files)))
		var s statusJSON
		ws.ckptJSON(&s, "status", "--rescan")
		ws.ckptJSON(&d, "diff", cp.CheckpointID)
		assertChanges(t, "diff from the checkpoint after status --rescan", d.Files, want("modified data.bin"))
	})
}
