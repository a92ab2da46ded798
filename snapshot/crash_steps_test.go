package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// The restore's steps in order, as the crash tests stop them
// (CKPT_TEST_CRASH_AT, crashpoint.go): each one is a point where the next
// step's waits were taken away or reordered, so each is checked for what
// a crash there leaves and what the next Open makes of it.

func (f *crashFixture) envAt(mode, step string) []string {
	return append(f.env(mode, 0), "CKPT_TEST_CRASH_AT="+step)
}

// TestCrashRestoreAtStep stops the restore at each named step.
func TestCrashRestoreAtStep(t *testing.T) {
	for _, tc := range []struct {
		step  string
		check func(t *testing.T, f *crashFixture, nBefore, nAfter int, strays []string)
	}{
		{crashIntent, func(t *testing.T, f *crashFixture, nb, na int, strays []string) {
			// The guard and the intent are durable, nothing on disk moved.
			if na != 0 || len(strays) != 0 {
				t.Errorf("stopped once the intent was durable, before any change: %d paths at their after version, temp files %v", na, strays)
			}
		}},
		{crashStaged, func(t *testing.T, f *crashFixture, nb, na int, strays []string) {
			// The removals are done; every write is staged, none renamed.
			if na != f.removals || nb != f.actions-f.removals {
				t.Errorf("stopped with the writes staged: %d paths at their after version, %d at their before version; want the %d removals done and %d writes not",
					na, nb, f.removals, f.actions-f.removals)
			}
			if len(strays) == 0 {
				t.Errorf("stopped with the writes staged, yet no temp file is there")
			}
		}},
		{crashApplied, func(t *testing.T, f *crashFixture, nb, na int, strays []string) {
			// Every change is on disk; the restore is not recorded: what a
			// power cut leaves when it loses the unsynced record commit.
			if nb != 0 || len(strays) != 0 {
				t.Errorf("stopped with every change made: %d paths still at their before version, temp files %v", nb, strays)
			}
		}},
	} {
		t.Run(tc.step, func(t *testing.T) {
			f := newCrashFixture(t)
			if code, out := runCrashHelper(t, f.envAt("restore", tc.step)...); code != 3 {
				t.Fatalf("the child restore was not stopped (exit %d, %q)", code, out)
			}
			nb, na := f.checkHalfway(t)
			_, strays := readMTree(t, f.root)
			tc.check(t, f, nb, na, strays)
			f.checkFinished(t)
		})
	}
}

// TestCrashRestoreEditedBeforeOpen: a restore is interrupted, and before
// the next Open a path it covers is written anew: the person edited it
// while ckpt was down, or (the "record lost" case) the edit came after the
// restore had answered and a power cut then lost the unsynced commit that
// recorded the restore, but not the edit. That content is in no
// checkpoint: Open must not write over it, must finish the rest, and the
// next scan records it.
func TestCrashRestoreEditedBeforeOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(f *crashFixture) []string
		// edit changes the tree on disk after the crash, given what it
		// holds, and returns what Open must leave.
		edit func(t *testing.T, f *crashFixture, disk mtree) mtree
	}{
		{"record lost, restored paths edited", func(f *crashFixture) []string { return f.envAt("restore", crashApplied) },
			func(t *testing.T, f *crashFixture, disk mtree) mtree {
				want := f.after.clone()
				modified, removed := "", ""
				for _, p := range sortedKeys(diffMTrees(f.before, f.after)) {
					b, inB := f.before[p]
					a, inA := f.after[p]
					switch {
					case modified == "" && inB && inA && b.kind == store.File && a.kind == store.File:
						modified = p
					case removed == "" && inB && !inA && b.kind == store.File && strings.HasPrefix(p, "new/"):
						removed = p
					}
				}
				if modified == "" || removed == "" {
					t.Fatalf("fixture: no modified (%q) or removed (%q) file", modified, removed)
				}
				writeEdit(t, f.root, modified, "edited after the restore\n")
				want[modified] = mfile("edited after the restore\n")
				// A path the restore removed, written again. (One deleted
				// again would be redone: it is back at its planned state,
				// which the guard holds.)
				writeEdit(t, f.root, removed, "written again after the restore\n")
				want[removed] = mfile("written again after the restore\n")
				return want
			}},
		{"midway, pending path edited", func(f *crashFixture) []string { return f.env("restore", f.removals+2) },
			func(t *testing.T, f *crashFixture, disk mtree) mtree {
				want := f.after.clone()
				for _, p := range sortedKeys(diffMTrees(f.before, f.after)) {
					b, inB := f.before[p]
					a, inA := f.after[p]
					if inB && inA && b.kind == store.File && a.kind == store.File && disk[p] == b {
						writeEdit(t, f.root, p, "edited while ckpt was down\n")
						want[p] = mfile("edited while ckpt was down\n")
						return want
					}
				}
				t.Fatalf("no modified file is still at its before version")
				return nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCrashFixture(t)
			if code, out := runCrashHelper(t, tc.env(f)...); code != 3 {
				t.Fatalf("the child restore was not stopped (exit %d, %q)", code, out)
			}
			f.checkHalfway(t)
			disk, _ := readMTree(t, f.root)
			want := tc.edit(t, f, disk)
			f.checkFinishedKeeping(t, want)
		})
	}
}

func writeEdit(t *testing.T, root, p, data string) {
	t.Helper()
	mustNil(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
	mustNil(t, os.WriteFile(filepath.Join(root, p), []byte(data), 0o644))
	mustNil(t, os.Chmod(filepath.Join(root, p), 0o644))
}

// checkFinishedKeeping opens the workspace (which finishes the restore)
// and checks that the disk is want (the target but for the paths edited
// after the crash), that the restore is recorded, that a scan then records
// exactly the edits, and that undo brings back the tree before the restore.
func (f *crashFixture) checkFinishedKeeping(t *testing.T, want mtree) {
	t.Helper()
	ws, err := Open(f.state, f.root, Options{LockTimeout: 5 * time.Second, Workers: 2})
	if err != nil {
		t.Fatalf("open after the crash: %v", err)
	}
	defer ws.Close()
	disk, strays := readMTree(t, f.root)
	if d := describeMDiff(disk, want); d != "" || len(strays) > 0 {
		t.Fatalf("after Open finished the restore the disk is not the target with the later edits kept:%s (strays %v)", d, strays)
	}
	checkNoIntent(t, ws)
	if cur, err := ws.Current(); err != nil || cur.ID != f.target.ID {
		t.Errorf("current checkpoint %s (%v), want the target %s", cur.ID, err, f.target.ID)
	}
	head := ws.Head()
	mustNil(t, ws.Reconcile(context.Background(), modelWalk(f.root)))
	edits := diffMTrees(f.after, want)
	if got := ws.Head() - head; got != uint64(len(edits)) {
		t.Errorf("the scan after Open journaled %d changes, want the %d edits %v", got, len(edits), edits)
	}
	if bad := storeMismatch(ws, want, storedAll); len(bad) > 0 {
		t.Errorf("after the scan the store does not match the disk:\n  %s", strings.Join(bad, "\n  "))
	}
	changes, err := ws.Drift(f.target, nil, nil)
	mustNil(t, err)
	var drifted []string
	for _, c := range changes {
		drifted = append(drifted, c.Path)
	}
	sort.Strings(drifted)
	if fmt.Sprint(drifted) != fmt.Sprint(sortedKeys(edits)) {
		t.Errorf("drift from the target after the scan: %v, want the edits %v", drifted, sortedKeys(edits))
	}
	f.checkUndo(t, ws, f.lastRestore(t, ws))
}
