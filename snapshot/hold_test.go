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
	if n := heldReplaced(t, root); n != 4 {
		t.Errorf("before release: %d replaced or removed inodes held, want 4", n)
	}
	release()
	deadline := time.Now().Add(10 * time.Second)
	for heldReplaced(t, root) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("10s after release: %d replaced inodes still held", heldReplaced(t, root))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
