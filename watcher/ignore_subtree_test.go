package watcher_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/watcher"
)

// subtreeEnv is a real watcher over a real workspace store.
type subtreeEnv struct {
	t    *testing.T
	root string
	ws   *snapshot.Workspace
	w    *watcher.Watcher
	ctx  context.Context
}

func newSubtreeEnv(t *testing.T, opts watcher.Options) *subtreeEnv {
	t.Helper()
	e := &subtreeEnv{t: t, root: t.TempDir()}
	var err error
	if e.ws, err = snapshot.Open(t.TempDir(), e.root, snapshot.Options{MaxFileSize: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.ws.Close() })
	if e.w, err = watcher.New(e.root, nil, e.ws, opts); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.ctx = ctx
	done := make(chan struct{})
	go func() { defer close(done); e.w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-e.w.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("watcher not ready")
	}
	return e
}

func (e *subtreeEnv) write(rel, content string) {
	e.t.Helper()
	abs := filepath.Join(e.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *subtreeEnv) sync() {
	e.t.Helper()
	if err := e.w.Sync(e.ctx); err != nil {
		e.t.Fatal(err)
	}
}

// entries lists the paths the store holds.
func (e *subtreeEnv) entries() []string {
	e.t.Helper()
	var out []string
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.Entries("", func(p string, _ store.State) error { out = append(out, p); return nil })
	})
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// fullWalk is what a full walk under the rules on disk now captures, and
// the fingerprint a fresh store of it has.
func (e *subtreeEnv) fullWalk() ([]string, store.Fingerprint) {
	e.t.Helper()
	wk := &watcher.Walker{Root: e.root, Ignorer: watcher.NewIgnorer(e.root, nil)}
	var out []string
	err := wk.Walk(context.Background(), func(rel string, _ os.FileInfo) error {
		if !watcher.IsInternal(filepath.Base(rel)) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Sort(out)
	fresh, err := snapshot.Open(e.t.TempDir(), e.root, snapshot.Options{MaxFileSize: 1 << 20})
	if err != nil {
		e.t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.Reconcile(context.Background(), wk.Walk); err != nil {
		e.t.Fatal(err)
	}
	return out, fresh.Fingerprint()
}

// TestIgnoreChangesMatchFullWalk: random edits, deletions, renames and
// rewrites of nested ignore files (negations, directory patterns,
// anchored patterns), each followed by a sync: the store holds exactly
// what a full walk under the rules on disk finds, with the same
// fingerprint, and the workspace was never re-walked as a whole.
func TestIgnoreChangesMatchFullWalk(t *testing.T) {
	seed := uint64(7)
	if v := os.Getenv("CKPT_TEST_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	t.Logf("seed %d (CKPT_TEST_SEED)", seed)
	e := newSubtreeEnv(t, watcher.Options{Debounce: 5 * time.Millisecond})
	dirs := []string{"a", "a/b", "a/b/gen", "a/gen", "c", "c/d", "c/d/gen", "c/x1"}
	names := []string{"f.txt", "keep.log", "o.log", "x1.txt", "gen"}
	rules := []string{"*.log\n", "!keep.log\n", "gen/\n", "/x1*\n", "b/\n", "!b/\n*.txt\n", "d\n", "!gen\n", "# nothing\n"}
	for _, d := range dirs {
		for _, n := range names[:3] {
			e.write(d+"/"+n, d+n)
		}
	}
	e.sync()
	r := rand.New(rand.NewPCG(seed, 11))
	for step := range 80 {
		d := dirs[r.IntN(len(dirs))]
		var what string
		switch k := r.IntN(10); {
		case k < 4: // rewrite an ignore file, sometimes several times
			var content string
			for range 1 + r.IntN(3) {
				content += rules[r.IntN(len(rules))]
			}
			name := ".gitignore"
			if r.IntN(4) == 0 {
				name = ".ckptignore"
			}
			for i := range 1 + r.IntN(3) {
				e.write(d+"/"+name, fmt.Sprintf("# %d\n%s", i, content))
			}
			what = "rules " + d + "/" + name + ": " + content
		case k < 5:
			os.Remove(filepath.Join(e.root, d, ".gitignore"))
			what = "remove " + d + "/.gitignore"
		case k < 8:
			p := d + "/" + names[r.IntN(len(names))]
			if fi, err := os.Stat(filepath.Join(e.root, p)); err == nil && fi.IsDir() {
				p += "/f.txt"
			}
			e.write(p, fmt.Sprint(step))
			what = "write " + p
		case k < 9:
			p := d + "/" + names[r.IntN(3)]
			os.Remove(filepath.Join(e.root, p))
			what = "remove " + p
		default:
			to := d + fmt.Sprintf("-moved%d", step)
			if r.IntN(2) == 0 {
				to = dirs[r.IntN(len(dirs))] + "/gen"
			}
			os.Rename(filepath.Join(e.root, d), filepath.Join(e.root, to))
			os.MkdirAll(filepath.Join(e.root, d), 0o755)
			what = "rename " + d + " to " + to
		}
		e.sync()
		want, fp := e.fullWalk()
		if got := e.entries(); !slices.Equal(got, want) {
			t.Fatalf("step %d (%s): the store holds\n  %v\nbut a full walk finds\n  %v", step, what, got, want)
		}
		if got := e.ws.Fingerprint(); got != fp {
			t.Fatalf("step %d (%s): fingerprint %v, a full scan's %v", step, what, got, fp)
		}
	}
	st := e.w.Stats()
	if st.Rewalks != 1 || st.SubtreeWalks == 0 {
		t.Errorf("full re-walks %d (want only the first), subtree re-walks %d (want some)", st.Rewalks, st.SubtreeWalks)
	}
}

// TestIgnoreBurstWalksOnce: a burst of writes to one .gitignore, then a
// sync, re-walks its directory once.
func TestIgnoreBurstWalksOnce(t *testing.T) {
	e := newSubtreeEnv(t, watcher.Options{Debounce: 2 * time.Second, MaxDelay: 10 * time.Second})
	e.write("a/b/f.log", "x")
	e.write("a/f.txt", "y")
	e.sync()
	before := e.w.Stats()
	for i := range 30 {
		e.write("a/.gitignore", fmt.Sprintf("# %d\n*.log\n", i))
	}
	e.sync()
	st := e.w.Stats()
	if n := st.SubtreeWalks - before.SubtreeWalks; n != 1 {
		t.Errorf("30 writes to a/.gitignore: %d re-walks of a, want 1", n)
	}
	if st.Rewalks != before.Rewalks {
		t.Errorf("30 writes to a/.gitignore: %d full re-walks, want 0", st.Rewalks-before.Rewalks)
	}
	if got, want := e.entries(), []string{"a/.gitignore", "a/f.txt"}; !slices.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
}
