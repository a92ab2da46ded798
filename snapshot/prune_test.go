package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// pruneLater makes Prune's clock run ahead, so that every checkpoint cut
// now counts as older than KeepRecent.
func pruneLater(t *testing.T) {
	t.Cleanup(func() { pruneNow = time.Now })
	pruneNow = func() time.Time { return time.Now().Add(2 * KeepRecent) }
}

func pruneWalk(root string) WalkFunc {
	return func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == root || d.IsDir() || strings.HasPrefix(d.Name(), InternalPrefix) {
				return err
			}
			info, err := os.Lstat(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			return visit(filepath.ToSlash(rel), info)
		})
	}
}

type pruneEnv struct {
	t     *testing.T
	ctx   context.Context
	root  string
	state string
	ws    *Workspace
}

func newPruneEnv(t *testing.T) *pruneEnv {
	e := &pruneEnv{t: t, ctx: context.Background(), root: t.TempDir(), state: t.TempDir()}
	e.open()
	if _, _, err := e.ws.Import(e.ctx, pruneWalk(e.root)); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *pruneEnv) open() {
	ws, err := Open(e.state, e.root, Options{LockTimeout: 5 * time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	e.ws = ws
	e.t.Cleanup(func() { ws.Close() })
}

func (e *pruneEnv) reopen() {
	if err := e.ws.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.open()
}

func (e *pruneEnv) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *pruneEnv) reconcile() { e.t.Helper(); e.must(e.ws.Reconcile(e.ctx, pruneWalk(e.root))) }

func (e *pruneEnv) cut(reason string, attr store.Attr) store.Checkpoint {
	e.t.Helper()
	e.reconcile()
	cp, err := e.ws.Cut(reason, "", attr)
	e.must(err)
	return cp
}

// disk is the workspace's files: content, with "x " before an executable
// file's and "-> " before a symlink's target.
func (e *pruneEnv) disk() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	e.must(pruneWalk(e.root)(e.ctx, func(rel string, info fs.FileInfo) error {
		p := filepath.Join(e.root, rel)
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		}
		b, err := os.ReadFile(p)
		x := ""
		if info.Mode()&0o100 != 0 {
			x = "x "
		}
		out[rel] = x + string(b)
		return err
	}))
	return out
}

// randomOps changes a few files of a small namespace.
func (e *pruneEnv) randomOps(rng *rand.Rand) {
	names := []string{"a", "b", "d/c", "d/e", "d/f/g", "h", "big"}
	for range 1 + rng.IntN(4) {
		name := names[rng.IntN(len(names))]
		p := filepath.Join(e.root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		switch op := rng.IntN(10); {
		case op < 2:
			os.Remove(p)
		case op == 2:
			os.Remove(p)
			e.must(os.Symlink(fmt.Sprintf("target-%d", rng.IntN(5)), p))
		case op == 3:
			if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() {
				e.must(os.Chmod(p, info.Mode()^0o111))
			}
		default:
			n := 1 + rng.IntN(64)
			if name == "big" {
				n = 64<<10 + rng.IntN(64<<10)
			}
			b := make([]byte, n)
			for i := range b {
				b[i] = byte('a' + rng.IntN(3)) // few contents repeat: dedup
			}
			if info, err := os.Lstat(p); err == nil && !info.Mode().IsRegular() {
				os.Remove(p)
			}
			e.must(os.WriteFile(p, b, 0o644))
		}
	}
}

// prunePicture is everything a checkpoint stands for: the state of every
// path at it, and the diffs from it to every other checkpoint and to head.
type prunePicture struct {
	states map[string]map[string]store.State
	diffs  map[[2]string][]FileChange
}

func (e *pruneEnv) picture(cps []store.Checkpoint, paths []string) prunePicture {
	e.t.Helper()
	pic := prunePicture{states: map[string]map[string]store.State{}, diffs: map[[2]string][]FileChange{}}
	e.must(e.ws.Store().View(func(r *store.Reader) error {
		for _, cp := range cps {
			m := map[string]store.State{}
			for _, p := range paths {
				st, err := r.StateAt(p, cp.Seq)
				if err != nil {
					return err
				}
				m[p] = st
			}
			pic.states[cp.ID] = m
		}
		return nil
	}))
	head := store.Checkpoint{ID: "head", Seq: e.ws.Head()}
	for _, a := range cps {
		for _, b := range append([]store.Checkpoint{head}, cps...) {
			d, err := e.ws.Diff(a.Seq, b.Seq, nil, nil)
			e.must(err)
			pic.diffs[[2]string{a.ID, b.ID}] = d
		}
	}
	return pic
}

func (e *pruneEnv) allPaths() []string {
	e.t.Helper()
	seen := map[string]bool{}
	var out []string
	e.must(e.ws.Store().View(func(r *store.Reader) error {
		return r.Changes(0, e.ws.Head(), func(c store.Change) error {
			if !seen[c.Path] {
				seen[c.Path] = true
				out = append(out, c.Path)
			}
			return nil
		})
	}))
	return out
}

func TestPruneKeepsRemainingCheckpointsExact(t *testing.T) {
	pruneLater(t)
	for seed := uint64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { prunePruneRandom(t, seed) })
	}
}

func prunePruneRandom(t *testing.T, seed uint64) {
	e := newPruneEnv(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	trees := map[string]map[string]string{}
	var history []store.Checkpoint
	const steps = 30
	var baseline store.Checkpoint
	run := store.Attr{Session: "s", Run: "open"}
	var runOwn []store.Checkpoint
	for i := 0; i < steps; i++ {
		e.randomOps(rng)
		var attr store.Attr
		if i >= steps/2 {
			attr = run
		}
		cp := e.cut(ReasonManual, attr)
		trees[cp.ID] = e.disk()
		history = append(history, cp)
		switch i {
		case steps / 5:
			e.must(e.ws.SetCurrent(cp))
		case steps / 4:
			// A restore long ago: its target (now current), guard and the
			// checkpoint current before it must stay (undo needs them).
			// It has a file to remove: a restore with nothing to write
			// cuts no guard.
			e.must(os.WriteFile(filepath.Join(e.root, "restored-away.txt"), []byte("gone\n"), 0o644))
			e.reconcile()
			guarded := e.disk()
			res, err := e.ws.Restore(e.ctx, history[steps/5+1], RestoreOptions{})
			e.must(err)
			trees[res.Guard.ID] = guarded
		case steps/2 - 1:
			// An open run whose baseline is this checkpoint; what follows is
			// the run's.
			baseline = cp
			e.must(e.ws.Store().Write(func(w *store.Writer) error {
				return w.PutRun(store.Run{Session: run.Session, Run: run.Run, BaselineID: cp.ID, StartSeq: cp.Seq, StartedAt: time.Now()})
			}))
			e.must(e.ws.SetActive(store.Active{Runs: []store.ActiveRun{{Session: run.Session, Run: run.Run}}}))
		}
		if attr.Session == run.Session && attr.Run == run.Run {
			runOwn = append(runOwn, cp)
		}
	}
	// A last stretch outside the run, checkpointed by nobody in particular.
	e.must(e.ws.SetActive(store.Active{Runs: []store.ActiveRun{{Session: run.Session, Run: run.Run}}}))
	for range 5 {
		e.randomOps(rng)
		cp := e.cut(ReasonManual, store.Attr{})
		trees[cp.ID] = e.disk()
	}

	all, err := e.ws.Checkpoints(0)
	e.must(err)
	paths := e.allPaths()
	before := e.picture(all, paths)
	fpBefore := e.ws.Fingerprint()
	sizeBefore := e.ws.Store().Size()

	// Prune everything cut before the newest quarter.
	olderThan := all[len(all)/4].CreatedAt
	stats, err := e.ws.Prune(e.ctx, olderThan)
	e.must(err)
	t.Logf("pruned %+v; Size %d -> %d", stats, sizeBefore, e.ws.Store().Size())

	left, err := e.ws.Checkpoints(0)
	e.must(err)
	byID := map[string]store.Checkpoint{}
	for _, cp := range left {
		byID[cp.ID] = cp
	}
	pinned := map[string]bool{baseline.ID: true}
	for _, cp := range runOwn {
		pinned[cp.ID] = true
	}
	e.must(e.ws.Store().View(func(r *store.Reader) error {
		lr, err := r.LastRestore()
		pinned[lr.TargetID], pinned[lr.GuardID], pinned[lr.PrevID] = true, true, true
		return err
	}))
	cur, err := e.ws.Current()
	e.must(err)
	pinned[cur.ID] = true
	if cur.ID != history[steps/5+1].ID || len(pinned) != len(runOwn)+4 {
		t.Fatalf("current %s, pinned %v: the history is not what the test means", cur.ID, pinned)
	}
	for _, cp := range all {
		_, kept := byID[cp.ID]
		want := !cp.CreatedAt.Before(olderThan) || pinned[cp.ID]
		if kept != want {
			t.Errorf("checkpoint %s (%s): kept %v, want %v", cp.ID, cp.Reason, kept, want)
		}
		if kept && !reflect.DeepEqual(byID[cp.ID], cp) {
			t.Errorf("checkpoint %s changed: %+v, was %+v", cp.ID, byID[cp.ID], cp)
		}
	}
	if stats.Checkpoints != len(all)-len(left) || stats.Checkpoints == 0 {
		t.Errorf("stats say %d checkpoints pruned; %d of %d are gone", stats.Checkpoints, len(all)-len(left), len(all))
	}
	if fp := e.ws.Fingerprint(); fp != fpBefore {
		t.Errorf("fingerprint %+v after pruning, was %+v", fp, fpBefore)
	}

	after := e.picture(left, paths)
	for _, a := range left {
		if !reflect.DeepEqual(after.states[a.ID], before.states[a.ID]) {
			t.Errorf("state at %s differs after pruning", a.ID)
		}
		for _, b := range append([]store.Checkpoint{{ID: "head"}}, left...) {
			k := [2]string{a.ID, b.ID}
			if !reflect.DeepEqual(after.diffs[k], before.diffs[k]) {
				t.Errorf("diff %s -> %s differs after pruning:\n got %+v\nwant %+v", a.ID, b.ID, after.diffs[k], before.diffs[k])
			}
		}
		for p, st := range after.states[a.ID] {
			if st.Exists() && st.Stored {
				if _, err := e.ws.Blob(st.Hash); err != nil {
					t.Errorf("content of %s at %s: %v", p, a.ID, err)
				}
			}
		}
	}

	// Pruning again at the same point removes nothing more.
	again, err := e.ws.Prune(e.ctx, olderThan)
	e.must(err)
	if again.Checkpoints != 0 || again.JournalEntries != 0 || again.PathEntries != 0 || again.Blobs != 0 {
		t.Errorf("second prune removed %+v", again)
	}

	// Every remaining checkpoint is exactly restorable; then undo.
	now := e.disk()
	for _, cp := range left {
		if _, err := e.ws.Restore(e.ctx, cp, RestoreOptions{}); err != nil {
			t.Fatalf("restore %s: %v", cp.ID, err)
		}
		if got := e.disk(); !reflect.DeepEqual(got, trees[cp.ID]) {
			t.Errorf("restoring %s after pruning gave %v, want %v", cp.ID, got, trees[cp.ID])
		}
	}
	last := left[0]
	_, err = e.ws.Restore(e.ctx, last, RestoreOptions{})
	e.must(err)
	if got := e.disk(); !reflect.DeepEqual(got, now) {
		t.Errorf("back at the newest checkpoint: %v, want %v", got, now)
	}

	// A pruned checkpoint can no longer be restored (it was looked up
	// before the prune).
	for _, cp := range all {
		if _, kept := byID[cp.ID]; !kept {
			_, err := e.ws.Restore(e.ctx, cp, RestoreOptions{})
			if !errors.Is(err, ErrBadID) {
				t.Errorf("restoring pruned %s: %v, want ErrBadID", cp.ID, err)
			}
			break
		}
	}

	// Showing the oldest remaining checkpoint reads a pruned journal
	// prefix: no changes there, no error.
	oldest := left[len(left)-1]
	if oldest.ID != history[steps/5].ID {
		t.Errorf("oldest remaining checkpoint %s, want %s", oldest.ID, history[steps/5].ID)
	}
	if oldest.Ord > 1 {
		if d, err := e.ws.Diff(0, oldest.Seq, nil, nil); err != nil || len(d) != 0 {
			t.Errorf("diff from 0 to the oldest checkpoint: %v %v, want nothing", d, err)
		}
		if stats.JournalEntries == 0 {
			t.Errorf("the oldest checkpoint went but no history was compacted: %+v", stats)
		}
	}

}

func TestPruneNothing(t *testing.T) {
	e := newPruneEnv(t)
	rng := rand.New(rand.NewPCG(9, 9))
	for range 10 {
		e.randomOps(rng)
		cp := e.cut(ReasonManual, store.Attr{})
		e.must(e.ws.SetCurrent(cp))
	}
	all, err := e.ws.Checkpoints(0)
	e.must(err)
	paths := e.allPaths()
	before := e.picture(all, paths)
	check := func(what string, stats PruneStats) {
		t.Helper()
		if stats.Checkpoints != 0 || stats.JournalEntries != 0 || stats.PathEntries != 0 || stats.Blobs != 0 {
			t.Errorf("%s: pruned %+v", what, stats)
		}
		left, err := e.ws.Checkpoints(0)
		e.must(err)
		if !reflect.DeepEqual(left, all) {
			t.Errorf("%s: %d checkpoints left of %d", what, len(left), len(all))
		}
		if after := e.picture(all, paths); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: states or diffs changed", what)
		}
		if d, err := e.ws.Diff(0, all[len(all)-2].Seq, nil, nil); err != nil || len(d) == 0 {
			t.Errorf("%s: the first checkpoint with files shows none: %v", what, err)
		}
	}
	// retention 0: the zero time.
	stats, err := e.ws.Prune(e.ctx, time.Time{})
	e.must(err)
	check("retention 0", stats)
	// Everything is younger than a day.
	stats, err = e.ws.Prune(e.ctx, time.Now().Add(time.Hour))
	e.must(err)
	check("all younger than a day", stats)
}

func TestPruneKeepsIntentBlobs(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	e.must(os.WriteFile(filepath.Join(e.root, "f"), []byte("one"), 0o644))
	old := e.cut(ReasonManual, store.Attr{})
	e.must(os.WriteFile(filepath.Join(e.root, "f"), []byte("two"), 0o644))
	cur := e.cut(ReasonManual, store.Attr{})
	e.must(e.ws.SetCurrent(cur))
	e.must(os.WriteFile(filepath.Join(e.root, "f"), []byte("three"), 0o644))
	e.cut(ReasonManual, store.Attr{})

	// An unfinished restore (as a crash leaves it) back to "one", whose
	// content nothing else refers to once old is pruned.
	one := store.HashBytes([]byte("one"))
	in := store.Intent{TargetID: cur.ID, GuardID: cur.ID, PrevID: cur.ID, Actions: []store.IntentAction{
		{Path: "f", State: store.State{Kind: store.File, Mode: 0o644, Hash: one, Stored: true}},
	}}
	e.must(e.ws.Store().Write(func(w *store.Writer) error { return w.PutIntent(in) }))
	stats, err := e.ws.Prune(e.ctx, time.Now().Add(time.Hour))
	e.must(err)
	if stats.Checkpoints == 0 {
		t.Fatalf("nothing pruned: %+v", stats)
	}
	if _, err := e.ws.Checkpoint(old.ID); !errors.Is(err, ErrBadID) {
		t.Fatalf("checkpoint %s survived: %v", old.ID, err)
	}
	if b, err := e.ws.Blob(one); err != nil || string(b) != "one" {
		t.Fatalf("the intent's content: %q %v", b, err)
	}
	// Once the intent is done, the next prune frees it.
	e.must(e.ws.Store().Write(func(w *store.Writer) error { return w.DeleteIntent() }))
	stats, err = e.ws.Prune(e.ctx, time.Now().Add(time.Hour))
	e.must(err)
	if _, err := e.ws.Blob(one); !errors.Is(err, store.ErrNotFound) || stats.Blobs != 1 {
		t.Fatalf("after the intent: %+v, blob %v", stats, err)
	}
}

// TestPruneShrinksStore stores about 40 MiB of files, deletes them, and
// checks that pruning the checkpoints that held them gives the space back.
func TestPruneShrinksStore(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	rng := rand.NewChaCha8([32]byte{4})
	const n, size = 10, 4 << 20
	for i := range n {
		b := make([]byte, size)
		rng.Read(b)
		e.must(os.WriteFile(filepath.Join(e.root, fmt.Sprintf("blob%d", i)), b, 0o644))
	}
	e.cut(ReasonManual, store.Attr{})
	for i := range n {
		e.must(os.Remove(filepath.Join(e.root, fmt.Sprintf("blob%d", i))))
	}
	e.must(os.WriteFile(filepath.Join(e.root, "small"), []byte("small"), 0o644))
	cur := e.cut(ReasonManual, store.Attr{})
	e.must(e.ws.SetCurrent(cur))
	// Badger never collects the value-log file it is writing to; a restart
	// (as the daemon's) moves it on to a new one.
	e.reopen()

	size0, usage0 := e.ws.Store().Size(), e.ws.Store().Size()
	stats, err := e.ws.Prune(e.ctx, time.Now().Add(time.Hour))
	e.must(err)
	size1, usage1 := e.ws.Store().Size(), e.ws.Store().Size()
	t.Logf("pruned %+v; Size %d -> %d; disk usage %d -> %d", stats, size0, size1, usage0, usage1)
	if stats.Blobs != n {
		t.Errorf("%d blobs pruned, want %d", stats.Blobs, n)
	}
	if size0-size1 < n*size*9/10 {
		t.Errorf("Size shrank by %d bytes, want at least %d", size0-size1, n*size*9/10)
	}
	if usage1 > usage0/10 || stats.BytesAfter > stats.BytesBefore/10 {
		t.Errorf("disk usage %d -> %d (stats %d -> %d), want it under a tenth", usage0, usage1, stats.BytesBefore, stats.BytesAfter)
	}
	// What is left still works.
	if got := e.disk(); !reflect.DeepEqual(got, map[string]string{"small": "small"}) {
		t.Errorf("workspace %v", got)
	}
	d, err := e.ws.Diff(cur.Seq, e.ws.Head(), nil, nil)
	if err != nil || len(d) != 0 {
		t.Errorf("drift after pruning: %v %v", d, err)
	}
	if _, err := e.ws.Restore(e.ctx, cur, RestoreOptions{}); err != nil {
		t.Error(err)
	}
}

// TestPruneKeepsOpenRunWithoutBaseline: a run that is open but has no
// recorded baseline keeps its own checkpoints and the one before them,
// which stands in for its baseline.
func TestPruneKeepsOpenRunWithoutBaseline(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	write := func(s string) { e.must(os.WriteFile(filepath.Join(e.root, "f"), []byte(s), 0o644)) }
	write("a")
	a := e.cut(ReasonManual, store.Attr{})
	write("b")
	b := e.cut(ReasonManual, store.Attr{})
	e.must(e.ws.SetActive(store.Active{Runs: []store.ActiveRun{{Session: "s", Run: "r", Calls: []string{"c1"}}}}))
	p := e.cut(ReasonPreWrite, store.Attr{Session: "s", Run: "r", Call: "c1"})
	e.must(e.ws.Store().Write(func(w *store.Writer) error {
		return w.PutToolWindow(store.ToolWindow{Session: "s", Run: "r", Call: "c1", CheckpointID: p.ID, StartSeq: p.Seq})
	}))
	write("c")
	c := e.cut(ReasonManual, store.Attr{})
	write("d")
	d := e.cut(ReasonManual, store.Attr{})
	e.must(e.ws.SetCurrent(d))
	_, err := e.ws.Prune(e.ctx, time.Now().Add(time.Hour))
	e.must(err)
	left, err := e.ws.Checkpoints(0)
	e.must(err)
	var ids []string
	for _, cp := range left {
		ids = append(ids, cp.ID)
	}
	if want := []string{d.ID, p.ID, b.ID}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("left %v, want %v (a=%s c=%s pruned)", ids, want, a.ID, c.ID)
	}
}
