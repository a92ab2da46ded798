package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// heldReplaced counts this process's descriptors on files under root whose
// name is gone (replaced or removed).
func heldReplaced(t *testing.T, root string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, root+"/") && strings.HasSuffix(target, " (deleted)") {
			n++
		}
	}
	return n
}

// TestApplyHoldsReplacedInodes: apply keeps each inode its renames
// replaced or its removals removed open, so the kernel frees it only at release, in the
// background, and release lets every one of them go.
func TestApplyHoldsReplacedInodes(t *testing.T) {
	t.Run("all held", func(t *testing.T) { testApplyHolds(t, 4) })
	// Past holdMax, what is held is closed while apply goes on.
	t.Run("past the bound", func(t *testing.T) {
		defer func(n int) { holdMax = n }(holdMax)
		holdMax = 3
		testApplyHolds(t, 1)
	})
}

// testApplyHolds applies a restore of three replaced files and a removal
// and checks that wantHeld are held when apply returns, none after
// release.
func testApplyHolds(t *testing.T, wantHeld int) {
	ws, root, _ := importMTree(t, mtree{"a": mfile("a1"), "d/b": mfile("b1"), "d/c": mfile("c1")})
	var actions []store.IntentAction
	mustNil(t, ws.st.View(func(r *store.Reader) error {
		return r.Entries("", func(p string, st store.State) error {
			actions = append(actions, store.IntentAction{Path: p, State: st})
			return nil
		})
	}))
	writeMTree(t, root, mtree{"a": mfile("a2"), "d/b": mfile("b2"), "d/c": mfile("c2"), "d/e/new": mfile("n")})
	actions = append(actions, store.IntentAction{Path: "d/e/new"}) // a removal
	failed, release, err := ws.apply(actions)
	mustNil(t, err)
	if len(failed) != 0 {
		t.Fatalf("apply failed: %v", failed)
	}
	got, _ := readMTree(t, root)
	if want := (mtree{"a": mfile("a1"), "d/b": mfile("b1"), "d/c": mfile("c1")}); describeMDiff(got, want) != "" {
		t.Fatalf("after apply: %s", describeMDiff(got, want))
	}
	if wantHeld == 4 {
		if n := heldReplaced(t, root); n != wantHeld {
			t.Errorf("before release: %d replaced or removed inodes held, want %d", n, wantHeld)
		}
	} else {
		waitHeld(t, root, wantHeld)
	}
	release()
	waitHeld(t, root, 0)
}

// waitHeld waits until exactly want replaced inodes under root are held.
func waitHeld(t *testing.T, root string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for heldReplaced(t, root) != want {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: %d replaced inodes held, want %d", heldReplaced(t, root), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
