package snapshot

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

var longFlag = flag.Bool("ckpt.long", false, "run the long model-based and crash tests (also CKPT_LONG=1)")

func longTests() bool { return *longFlag || os.Getenv("CKPT_LONG") == "1" }

// node is what the model knows of one path: a file's content and exec bit,
// or a symlink's target.
type mnode struct {
	kind store.Kind
	data string
	exec bool
}

func (n mnode) String() string {
	switch n.kind {
	case store.Symlink:
		return fmt.Sprintf("symlink->%q", n.data)
	case store.File:
		x := ""
		if n.exec {
			x = " +x"
		}
		return fmt.Sprintf("file%s %q", x, n.data)
	}
	return "absent"
}

// tree is a workspace's files and symlinks by path; directories are implied.
type mtree map[string]mnode

func (tr mtree) clone() mtree {
	out := make(mtree, len(tr))
	for p, n := range tr {
		out[p] = n
	}
	return out
}

// dirs is every directory that holds a path of the tree.
func (tr mtree) dirs() []string {
	set := map[string]bool{}
	for p := range tr {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			set[d] = true
		}
	}
	return sortedKeys(set)
}

// under lists the tree's paths in dir (or dir itself).
func (tr mtree) under(dir string) []string {
	var out []string
	for p := range tr {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// diffTrees is the model's answer to Diff: path -> kind.
func diffMTrees(a, b mtree) map[string]store.ChangeKind {
	out := map[string]store.ChangeKind{}
	for p, na := range a {
		nb, ok := b[p]
		switch {
		case !ok:
			out[p] = store.Deleted
		case na != nb:
			out[p] = store.Modified
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out[p] = store.Added
		}
	}
	return out
}

// describeDiff renders how got differs from want, for failure messages.
func describeMDiff(got, want mtree) string {
	var b strings.Builder
	for _, p := range sortedKeys(diffMTrees(want, got)) {
		fmt.Fprintf(&b, "\n  %s: have %v, want %v", p, got[p], want[p])
	}
	return b.String()
}

// modelWalk lists the workspace as the watcher would: every file and
// symlink, never following symlinks, skipping ckpt's own temp files.
func modelWalk(root string) WalkFunc {
	return func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p == root {
				return nil
			}
			if strings.HasPrefix(d.Name(), InternalPrefix) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return ctx.Err()
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0 {
				return nil
			}
			return visit(filepath.ToSlash(p[len(root)+1:]), info)
		})
	}
}

// readDisk reads the workspace's files and symlinks, and lists the names
// that start with InternalPrefix (there should be none).
func readMTree(t testing.TB, root string) (mtree, []string) {
	t.Helper()
	tr := mtree{}
	var strays []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel := filepath.ToSlash(p[len(root)+1:])
		if strings.HasPrefix(d.Name(), InternalPrefix) {
			strays = append(strays, rel)
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			tr[rel] = mnode{kind: store.Symlink, data: target}
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			tr[rel] = mnode{kind: store.File, data: string(b), exec: info.Mode()&0o111 != 0}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read workspace: %v", err)
	}
	return tr, strays
}

// nodeState is the store's view of a node: its hash, kind and exec bit.
func mnodeState(n mnode) store.State {
	st := store.State{Kind: n.kind, Hash: store.HashBytes([]byte(n.data)), Mode: 0o644}
	if n.exec {
		st.Mode = 0o755
	}
	return st
}

// treeFingerprint is the fingerprint the model expects for a tree.
func mtreeFingerprint(tr mtree) store.Fingerprint {
	var fp store.Fingerprint
	for p, n := range tr {
		fp = roll(fp, p, store.State{}, mnodeState(n))
	}
	return fp
}

// ---- the model-based test ----

type modelConfig struct {
	ops         int
	maxFileSize int64 // 0: everything stored
	maxLen      int   // longest file content written
}

type modelRun struct {
	t    *testing.T
	cfg  modelConfig
	rng  *rand.Rand
	seed uint64
	ctx  context.Context

	root  string
	state string
	ws    *Workspace
	walk  WalkFunc

	live    mtree           // what the disk holds (checked against it)
	touched map[string]bool // paths changed since the last capture
	cps     []store.Checkpoint
	want    map[string]mtree // checkpoint id -> what it holds
	texts   []string         // every content written so far
	log     []string
	stats   map[string]int
	// kept is the drift from the current checkpoint kept between checks
	// (KeptDrift), and keptSeen the entries its keep saw since its reset.
	kept     KeptDrift
	keptSeen map[keptEntry]int
}

// keptEntry is one journal entry a drift's keep saw (an unsettled
// path's stand-in may share its seq with another's).
type keptEntry struct {
	seq  uint64
	path string
}

func newModelRun(t *testing.T, seed uint64, cfg modelConfig) *modelRun {
	m := &modelRun{
		t: t, cfg: cfg, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), ctx: context.Background(),
		root: t.TempDir(), state: t.TempDir(),
		live: mtree{}, touched: map[string]bool{}, want: map[string]mtree{}, stats: map[string]int{},
	}
	m.walk = modelWalk(m.root)
	t.Cleanup(func() {
		if t.Failed() {
			n := max(0, len(m.log)-60)
			t.Logf("seed %d; the last %d of %d steps:\n  %s", seed, len(m.log)-n, len(m.log), strings.Join(m.log[n:], "\n  "))
		}
	})
	// A starting tree, imported.
	for range 6 {
		m.opWrite()
	}
	m.opNewDirs()
	m.touched = map[string]bool{}
	var err error
	m.ws, err = Open(m.state, m.root, Options{MaxFileSize: cfg.maxFileSize, LockTimeout: time.Second, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.ws.Close() })
	cp, imported, err := m.ws.Import(m.ctx, m.walk)
	if err != nil || !imported {
		t.Fatalf("import: %v (imported %v)", err, imported)
	}
	m.addCheckpoint(cp, m.live.clone())
	m.checkStore("after import")
	return m
}

func (m *modelRun) logf(format string, args ...any) {
	m.log = append(m.log, fmt.Sprintf(format, args...))
}

func (m *modelRun) fatalf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d, step %d: %s", m.seed, len(m.log), fmt.Sprintf(format, args...))
}

func (m *modelRun) abs(rel string) string { return filepath.Join(m.root, filepath.FromSlash(rel)) }

func (m *modelRun) touch(paths ...string) {
	for _, p := range paths {
		m.touched[p] = true
	}
}

// ---- content and path choices ----

var modelNames = []string{"a", "b", "ab", "a0", "a.b", "x.go", "y", "z.txt"}

func (m *modelRun) content() string {
	if len(m.texts) > 0 && m.rng.IntN(4) == 0 {
		return m.texts[m.rng.IntN(len(m.texts))] // identical to an older version
	}
	n := m.rng.IntN(m.cfg.maxLen + 1)
	if m.rng.IntN(10) == 0 {
		n = 0
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefgh\n"[m.rng.IntN(9)]
	}
	m.texts = append(m.texts, string(b))
	return string(b)
}

func (m *modelRun) pick(paths []string) string { return paths[m.rng.IntN(len(paths))] }

func (m *modelRun) paths(kind store.Kind) []string {
	var out []string
	for p, n := range m.live {
		if kind == store.Absent || n.kind == kind {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// newPath is a path where nothing is: in the root or a directory of the
// tree, with a short name from a small set, so that names collide and are
// prefixes of one another.
func (m *modelRun) newPath() (string, bool) {
	dirs := append([]string{"."}, m.live.dirs()...)
	for range 10 {
		p := path.Join(m.pick(dirs), m.pick(modelNames))
		if m.free(p) {
			return p, true
		}
	}
	return "", false
}

// free reports whether a file can be created at p: nothing is there, and
// every parent on the way is a directory or absent.
func (m *modelRun) free(p string) bool {
	if _, err := os.Lstat(m.abs(p)); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		info, err := os.Lstat(m.abs(d))
		if err == nil && !info.IsDir() {
			return false
		}
	}
	return true
}

// mkdirs makes the parent directories of p and marks the new ones touched,
// as the watcher reports a directory that appears.
func (m *modelRun) mkdirs(p string) {
	var missing []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if _, err := os.Lstat(m.abs(d)); err != nil {
			missing = append(missing, d)
		}
	}
	m.must(os.MkdirAll(filepath.Dir(m.abs(p)), 0o755))
	m.touch(missing...)
}

func (m *modelRun) must(err error) {
	m.t.Helper()
	if err != nil {
		var ls []string
		filepath.WalkDir(m.root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != m.root {
				ls = append(ls, fmt.Sprintf("%s %v", p[len(m.root)+1:], d.Type()))
			}
			return nil
		})
		m.fatalf("file operation: %v; the workspace holds:\n  %s", err, strings.Join(ls, "\n  "))
	}
}

// ---- file operations (each changes the disk and the model alike) ----

func (m *modelRun) opWrite() {
	files := m.paths(store.File)
	var p string
	if len(files) > 0 && m.rng.IntN(2) == 0 {
		p = m.pick(files)
	} else {
		var ok bool
		if p, ok = m.newPath(); !ok {
			return
		}
	}
	data := m.content()
	old, had := m.live[p]
	switch {
	case had && m.rng.IntN(2) == 0:
		// In place: same inode, the mode stays.
		m.must(os.WriteFile(m.abs(p), []byte(data), 0o644))
		m.live[p] = mnode{kind: store.File, data: data, exec: old.exec}
		m.logf("write %s in place %q", p, data)
	default:
		// As editors do: a temp file renamed over it (the mode resets).
		m.mkdirs(p)
		tmp := m.abs(p) + ".edit~"
		m.must(os.WriteFile(tmp, []byte(data), 0o644))
		m.must(os.Chmod(tmp, 0o644))
		m.must(os.Rename(tmp, m.abs(p)))
		m.live[p] = mnode{kind: store.File, data: data}
		m.logf("write %s %q", p, data)
	}
	m.touch(p)
}

func (m *modelRun) opDelete() {
	all := m.paths(store.Absent)
	if len(all) == 0 {
		return
	}
	p := m.pick(all)
	m.must(os.Remove(m.abs(p)))
	delete(m.live, p)
	m.touch(p)
	m.logf("rm %s", p)
}

func (m *modelRun) opChmod() {
	files := m.paths(store.File)
	if len(files) == 0 {
		return
	}
	p := m.pick(files)
	n := m.live[p]
	n.exec = !n.exec
	mode := fs.FileMode(0o644)
	if n.exec {
		mode = 0o755
	}
	m.must(os.Chmod(m.abs(p), mode))
	m.live[p] = n
	m.touch(p)
	m.logf("chmod %s %v", p, mode)
}

// opSymlink creates a symlink, or replaces a file or symlink by one, with a
// relative target: a file, a directory, or nothing.
func (m *modelRun) opSymlink() {
	var p string
	if all := m.paths(store.Absent); len(all) > 0 && m.rng.IntN(2) == 0 {
		p = m.pick(all)
	} else {
		var ok bool
		if p, ok = m.newPath(); !ok {
			return
		}
	}
	candidates := append(m.paths(store.Absent), m.live.dirs()...)
	target := "missing"
	if len(candidates) > 0 && m.rng.IntN(5) != 0 {
		to := m.pick(candidates)
		rel, err := filepath.Rel(path.Dir(p), to)
		m.must(err)
		target = filepath.ToSlash(rel)
	}
	if _, had := m.live[p]; had {
		m.must(os.Remove(m.abs(p)))
	}
	m.mkdirs(p)
	m.must(os.Symlink(target, m.abs(p)))
	m.live[p] = mnode{kind: store.Symlink, data: target}
	m.touch(p)
	m.logf("ln -s %s %s", target, p)
}

// removeDir is rm -rf of a directory of the tree.
func (m *modelRun) removeDir() (string, bool) {
	dirs := m.live.dirs()
	if len(dirs) == 0 {
		return "", false
	}
	d := m.pick(dirs)
	m.must(os.RemoveAll(m.abs(d)))
	gone := m.live.under(d)
	for _, p := range gone {
		delete(m.live, p)
	}
	m.touch(d)
	m.touch(gone...)
	return d, true
}

func (m *modelRun) opRemoveDir() {
	if d, ok := m.removeDir(); ok {
		m.logf("rm -rf %s", d)
	}
}

// opNewDirs makes new nested directories with files in them.
func (m *modelRun) opNewDirs() {
	top, ok := m.newPath()
	if !ok {
		return
	}
	dirs := []string{top}
	for range m.rng.IntN(3) {
		dirs = append(dirs, path.Join(m.pick(dirs), m.pick(modelNames)))
	}
	m.touch(top)
	var made []string
	for _, d := range dirs {
		for range 1 + m.rng.IntN(2) {
			p := path.Join(d, m.pick(modelNames))
			if _, ok := m.live[p]; ok || slices.Contains(dirs, p) {
				continue
			}
			m.must(os.MkdirAll(m.abs(d), 0o755))
			data := m.content()
			m.must(os.WriteFile(m.abs(p), []byte(data), 0o644))
			m.live[p] = mnode{kind: store.File, data: data}
			m.touch(d, p)
			made = append(made, p)
		}
	}
	m.logf("mkdir -p, new files %v", made)
}

func (m *modelRun) opRenameFile() {
	all := m.paths(store.Absent)
	if len(all) == 0 {
		return
	}
	src := m.pick(all)
	var dst string
	if m.rng.IntN(3) == 0 {
		dst = m.pick(all) // over an existing file or symlink
		if dst == src {
			return
		}
	} else {
		var ok bool
		if dst, ok = m.newPath(); !ok {
			return
		}
		m.mkdirs(dst)
	}
	m.must(os.Rename(m.abs(src), m.abs(dst)))
	m.live[dst] = m.live[src]
	delete(m.live, src)
	m.touch(src, dst)
	m.logf("mv %s %s", src, dst)
}

func (m *modelRun) opRenameDir() {
	dirs := m.live.dirs()
	if len(dirs) == 0 {
		return
	}
	src := m.pick(dirs)
	dst, ok := m.newPath()
	if !ok || dst == src || strings.HasPrefix(dst, src+"/") {
		return
	}
	m.mkdirs(dst)
	m.must(os.Rename(m.abs(src), m.abs(dst)))
	moved := m.live.under(src)
	m.touch(src, dst)
	m.touch(moved...)
	for _, p := range moved {
		np := dst + p[len(src):]
		m.live[np] = m.live[p]
		delete(m.live, p)
		m.touch(np)
	}
	m.logf("mv %s/ %s/", src, dst)
}

// opFileToDir replaces a file by a directory with a file in it.
func (m *modelRun) opFileToDir() {
	files := m.paths(store.Absent)
	if len(files) == 0 {
		return
	}
	p := m.pick(files)
	m.must(os.Remove(m.abs(p)))
	delete(m.live, p)
	m.must(os.Mkdir(m.abs(p), 0o755))
	q := path.Join(p, m.pick(modelNames))
	data := m.content()
	m.must(os.WriteFile(m.abs(q), []byte(data), 0o644))
	m.live[q] = mnode{kind: store.File, data: data}
	m.touch(p, q)
	m.logf("rm %s; mkdir %s; write %s %q", p, p, q, data)
}

// opDirToOther replaces a directory by a file or by a symlink to another
// directory (or file).
func (m *modelRun) opDirToOther() {
	d, ok := m.removeDir()
	if !ok {
		return
	}
	m.mkdirs(d)
	if m.rng.IntN(2) == 0 {
		data := m.content()
		m.must(os.WriteFile(m.abs(d), []byte(data), 0o644))
		m.live[d] = mnode{kind: store.File, data: data}
		m.logf("rm -rf %s; write %s %q", d, d, data)
		return
	}
	target := "elsewhere"
	if others := append(m.live.dirs(), m.paths(store.Absent)...); len(others) > 0 {
		rel, err := filepath.Rel(path.Dir(d), m.pick(others))
		m.must(err)
		target = filepath.ToSlash(rel)
	}
	m.must(os.Symlink(target, m.abs(d)))
	m.live[d] = mnode{kind: store.Symlink, data: target}
	m.logf("rm -rf %s; ln -s %s %s", d, target, d)
}

// ---- capture, checks, checkpoints, restores ----

// capture brings the store up to date: a full Reconcile, or a Capture of
// exactly the paths touched since the last capture.
func (m *modelRun) capture() {
	if m.rng.IntN(2) == 0 {
		if err := m.ws.Reconcile(m.ctx, m.walk); err != nil {
			m.fatalf("reconcile: %v", err)
		}
		m.logf("reconcile")
		m.stats["reconcile"]++
	} else {
		paths := sortedKeys(m.touched)
		if err := m.ws.Capture(m.ctx, paths); err != nil {
			m.fatalf("capture %v: %v", paths, err)
		}
		m.logf("capture %v", paths)
		m.stats["capture"]++
	}
	m.touched = map[string]bool{}
	m.checkStore("after capture")
}

func (m *modelRun) stored(n mnode) bool {
	return n.kind == store.Symlink || m.cfg.maxFileSize <= 0 || int64(len(n.data)) <= m.cfg.maxFileSize
}

// checkStore compares the store's entries and live fingerprint with the
// model's live tree.
func (m *modelRun) checkStore(when string) {
	m.t.Helper()
	if bad := storeMismatch(m.ws, m.live, m.stored); len(bad) > 0 {
		m.fatalf("%s the store does not match the disk:\n  %s", when, strings.Join(bad, "\n  "))
	}
}

// storeMismatch lists how the store's entries and live fingerprint differ
// from tr; stored says which nodes' contents should be stored.
func storeMismatch(ws *Workspace, tr mtree, stored func(mnode) bool) []string {
	got := map[string]store.State{}
	err := ws.Store().View(func(r *store.Reader) error {
		return r.Entries("", func(p string, st store.State) error { got[p] = st; return nil })
	})
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	for p, n := range tr {
		st, ok := got[p]
		want := mnodeState(n)
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s: no entry, disk has %v", p, n))
		case !st.SameContent(want):
			bad = append(bad, fmt.Sprintf("%s: entry %v %x exec=%v, disk has %v", p, st.Kind, st.Hash.H1, st.Exec(), n))
		case st.Stored != stored(n):
			bad = append(bad, fmt.Sprintf("%s: entry stored=%v, want %v", p, st.Stored, stored(n)))
		}
	}
	for p, st := range got {
		if _, ok := tr[p]; !ok {
			bad = append(bad, fmt.Sprintf("%s: entry %v, but nothing on disk", p, st.Kind))
		}
	}
	sort.Strings(bad)
	if fp, want := ws.Fingerprint(), mtreeFingerprint(tr); fp != want {
		bad = append(bad, fmt.Sprintf("live fingerprint %v, the disk's %v", fp, want))
	}
	return bad
}

// checkDisk compares the disk with want, exactly, and looks for strays.
func (m *modelRun) checkDisk(when string, want mtree) {
	m.t.Helper()
	got, strays := readMTree(m.t, m.root)
	if len(strays) > 0 {
		m.fatalf("%s: ckpt's temp files left in the workspace: %v", when, strays)
	}
	if d := describeMDiff(got, want); d != "" {
		m.fatalf("%s: the disk differs from the model:%s", when, d)
	}
}

func (m *modelRun) sync() {
	if len(m.touched) > 0 {
		m.capture()
	}
}

func (m *modelRun) addCheckpoint(cp store.Checkpoint, tr mtree) {
	m.cps = append(m.cps, cp)
	m.want[cp.ID] = tr
	if fp := mtreeFingerprint(tr); cp.Fingerprint != fp.Sum || cp.Files != fp.Count {
		m.fatalf("checkpoint %s (%s) has fingerprint %x/%d, its tree %x/%d", cp.ID, cp.Reason, cp.Fingerprint, cp.Files, fp.Sum, fp.Count)
	}
}

func (m *modelRun) cut() {
	m.sync()
	cp, err := m.ws.Cut(ReasonManual, "", store.Attr{})
	if err != nil {
		m.fatalf("cut: %v", err)
	}
	m.logf("cut %s at seq %d", cp.ID, cp.Seq)
	m.stats["cut"]++
	m.addCheckpoint(cp, m.live.clone())
}

// restore restores target exactly and checks the disk, the store and the
// guard against the model.
func (m *modelRun) restore(target store.Checkpoint, what string) {
	m.sync()
	pre := m.live.clone()
	res, err := m.ws.Restore(m.ctx, target, RestoreOptions{})
	if err != nil {
		m.fatalf("%s %s: %v", what, target.ID, err)
	}
	m.logf("%s %s (seq %d): %d restored, %d kept, guard %s", what, target.ID, target.Seq, len(res.Restored), len(res.Kept), res.Guard.ID)
	m.stats[what]++
	// What must be on disk: the target, except the paths the restore kept
	// (contents not stored) or could not write, which stay as they were.
	want := m.want[target.ID].clone()
	stay := map[string]string{}
	for _, k := range res.Kept {
		stay[k.Path] = "kept: " + k.Why
	}
	for _, r := range res.Restored {
		if r.Err != nil {
			stay[r.Path] = "failed: " + r.Err.Error()
		}
	}
	if m.cfg.maxFileSize <= 0 && len(stay) > 0 {
		m.fatalf("%s %s: everything is stored, yet paths were left alone: %v", what, target.ID, stay)
	}
	for p, why := range stay {
		if m.stored(pre[p]) && m.stored(want[p]) && !strings.HasPrefix(why, "failed") {
			m.fatalf("%s %s: kept %s (%s) though both its contents are stored", what, target.ID, p, why)
		}
		if n, ok := pre[p]; ok {
			want[p] = n
		} else {
			delete(want, p)
		}
	}
	// Whatever changed and is not stored on one side must be kept.
	for p := range diffMTrees(pre, m.want[target.ID]) {
		a, inPre := pre[p]
		b, inTarget := m.want[target.ID][p]
		if (inPre && !m.stored(a)) || (inTarget && !m.stored(b)) {
			if !strings.HasPrefix(stay[p], "kept") {
				m.fatalf("%s %s: %s changed from %v to %v and one side is not stored, yet it is not kept (%q)", what, target.ID, p, b, a, stay[p])
			}
		}
	}
	if len(stay) > 0 {
		m.stats["restores with kept paths"]++
	}
	m.checkDisk(fmt.Sprintf("%s %s", what, target.ID), want)
	m.live = want
	switch {
	case res.Guard.ID != "":
		m.addCheckpoint(res.Guard, pre)
		if res.Guard.Reason != ReasonPreRestoreGuard {
			m.fatalf("guard reason %q", res.Guard.Reason)
		}
	case len(res.Restored) > 0:
		m.fatalf("%s %s restored %d paths without a guard", what, target.ID, len(res.Restored))
	default:
		m.stats[what+"s with nothing to write"]++
	}
	if cur, err := m.ws.Current(); err != nil || cur.ID != target.ID {
		m.fatalf("current checkpoint after %s %s is %s (%v)", what, target.ID, cur.ID, err)
	}
	m.checkStore("after " + what)
	if len(stay) == 0 {
		if fp := m.ws.Fingerprint(); fp.Sum != target.Fingerprint || fp.Count != target.Files {
			m.fatalf("live fingerprint after an exact %s is %v, the target's %x/%d", what, fp, target.Fingerprint, target.Files)
		}
	}
	// The restore recorded what it wrote: a scan right after finds nothing.
	head := m.ws.Head()
	if err := m.ws.Reconcile(m.ctx, m.walk); err != nil {
		m.fatalf("reconcile after %s: %v", what, err)
	}
	if h := m.ws.Head(); h != head {
		var extra []string
		m.ws.Store().View(func(r *store.Reader) error {
			return r.Changes(head, h, func(c store.Change) error {
				extra = append(extra, fmt.Sprintf("%s %s", c.Kind, c.Path))
				return nil
			})
		})
		m.fatalf("a scan right after %s journaled %v", what, extra)
	}
}

// pickCheckpoint is any checkpoint, mostly a recent one (a restore or diff
// costs what changed since: long runs would slow down quadratically).
func (m *modelRun) pickCheckpoint() store.Checkpoint {
	if m.rng.IntN(4) == 0 {
		return m.cps[m.rng.IntN(len(m.cps))]
	}
	return m.cps[max(0, len(m.cps)-1-m.rng.IntN(30))]
}

func (m *modelRun) opRestore() {
	m.restore(m.pickCheckpoint(), "restore")
}

func (m *modelRun) opUndo() {
	var lr store.LastRestore
	err := m.ws.Store().View(func(r *store.Reader) (err error) {
		lr, err = r.LastRestore()
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return
	}
	if err != nil {
		m.fatalf("last restore: %v", err)
	}
	guard, err := m.ws.Checkpoint(lr.GuardID)
	if err != nil {
		m.fatalf("guard %s: %v", lr.GuardID, err)
	}
	m.restore(guard, "undo")
}

// checkDiffs compares Diff between random pairs of checkpoints (either
// way in time) and from a checkpoint to the head with the model.
func (m *modelRun) checkDiffs() {
	m.sync()
	for range 3 {
		a, b := m.pickCheckpoint(), m.pickCheckpoint()
		m.checkDiff(a.Seq, b.Seq, m.want[a.ID], m.want[b.ID], a.ID+".."+b.ID)
	}
	a := m.pickCheckpoint()
	m.checkDiff(a.Seq, m.ws.Head(), m.want[a.ID], m.live, a.ID+"..head")
	// Drift from the current checkpoint reads only the journal since the
	// last restore settled: it must still see every difference.
	cur, err := m.ws.Current()
	if err != nil {
		m.fatalf("current: %v", err)
	}
	fcs, err := m.ws.Drift(cur, nil, nil)
	m.checkChanges(fcs, err, cur.Seq, m.ws.Head(), m.want[cur.ID], m.live, "drift from "+cur.ID)
	// The states a diff takes from the journal it read are exactly those
	// the path index holds.
	resolveBySeek = true
	sought, err := m.ws.Drift(cur, nil, nil)
	resolveBySeek = false
	if err != nil || !reflect.DeepEqual(fcs, sought) {
		m.fatalf("drift from %s: %v from the journal, %v (%v) from the path index", cur.ID, fcs, sought, err)
	}
	m.checkKeptDrift(cur, fcs)
	m.stats["diff checks"] += 5
}

// checkKeptDrift: the drift kept between checks is the one read whole,
// and its keep has seen exactly the entries one Drift shows its keep.
func (m *modelRun) checkKeptDrift(cur store.Checkpoint, whole []FileChange) {
	m.t.Helper()
	seen := map[keptEntry]int{}
	if _, err := m.ws.Drift(cur, nil, func(c store.Change) bool { seen[keptEntry{c.Seq, c.Path}]++; return true }); err != nil {
		m.fatalf("drift from %s: %v", cur.ID, err)
	}
	kept, err := m.ws.KeptDrift(&m.kept, cur, func(int) { m.keptSeen = map[keptEntry]int{} }, func(c store.Change) bool {
		m.keptSeen[keptEntry{c.Seq, c.Path}]++
		return true
	})
	if err != nil || !reflect.DeepEqual(kept, whole) {
		m.fatalf("drift from %s: %v read whole, %v (%v) kept", cur.ID, whole, kept, err)
	}
	if !maps.Equal(seen, m.keptSeen) {
		m.fatalf("drift from %s: its keep saw %v read whole, %v kept", cur.ID, seen, m.keptSeen)
	}
	m.stats["kept drift checks"]++
}

func (m *modelRun) checkDiff(from, to uint64, a, b mtree, what string) {
	m.t.Helper()
	fcs, err := m.ws.Diff(from, to, nil, nil)
	m.checkChanges(fcs, err, from, to, a, b, what)
}

// checkChanges compares a diff's answer with the model's.
func (m *modelRun) checkChanges(fcs []FileChange, err error, from, to uint64, a, b mtree, what string) {
	m.t.Helper()
	if err != nil {
		m.fatalf("diff %s: %v", what, err)
	}
	want := diffMTrees(a, b)
	got := map[string]store.ChangeKind{}
	for _, fc := range fcs {
		got[fc.Path] = fc.Kind
		if !fc.From.SameContent(mnodeStateOr(a, fc.Path)) || !fc.To.SameContent(mnodeStateOr(b, fc.Path)) {
			m.fatalf("diff %s: %s goes from %v to %v; the model says %v to %v", what, fc.Path, fc.From, fc.To, a[fc.Path], b[fc.Path])
		}
	}
	if len(got) != len(want) {
		m.fatalf("diff %s (seq %d..%d) = %v, the model says %v", what, from, to, got, want)
	}
	for p, k := range want {
		if got[p] != k {
			m.fatalf("diff %s (seq %d..%d) = %v, the model says %v", what, from, to, got, want)
		}
	}
}

func mnodeStateOr(tr mtree, p string) store.State {
	if n, ok := tr[p]; ok {
		return mnodeState(n)
	}
	return store.State{}
}

// step does one random operation.
func (m *modelRun) step() {
	type op struct {
		weight int
		fn     func()
	}
	ops := []op{
		{20, m.opWrite},
		{6, m.opDelete},
		{4, m.opChmod},
		{5, m.opSymlink},
		{2, m.opRemoveDir},
		{3, m.opNewDirs},
		{4, m.opRenameFile},
		{2, m.opRenameDir},
		{2, m.opFileToDir},
		{2, m.opDirToOther},
		{18, m.capture},
		{10, m.cut},
		{4, m.opRestore},
		{2, m.opUndo},
		{3, m.checkDiffs},
	}
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	n := m.rng.IntN(total)
	for _, o := range ops {
		if n < o.weight {
			o.fn()
			return
		}
		n -= o.weight
	}
}

func (m *modelRun) run() {
	start := time.Now()
	for i := range m.cfg.ops {
		m.step()
		if longTests() && i%5000 == 4999 {
			m.t.Logf("seed %d: %d of %d steps, %d checkpoints, %v", m.seed, i+1, m.cfg.ops, len(m.cps), time.Since(start).Round(time.Second))
		}
		if i%5 == 0 {
			// The model of the live tree must be what the disk holds.
			m.checkDisk("model check", m.live)
		}
		if m.t.Failed() {
			return
		}
	}
	m.cut()
	m.opRestore()
	m.t.Logf("seed %d: %d steps, %d checkpoints; %v", m.seed, len(m.log), len(m.cps), m.stats)
}

func modelSeeds(t *testing.T, fixed []uint64) []uint64 {
	if !longTests() {
		return fixed
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("long run, seed %d", seed)
	return []uint64{seed}
}

// TestModel runs random file operations, captures (full scans and exact
// path lists), checkpoints, exact restores and undos against a real
// workspace and checks the disk, the store and every diff against an
// in-memory model of what each checkpoint holds.
func TestModel(t *testing.T) {
	ops := 1000
	if longTests() {
		ops = 100000
	}
	for _, seed := range modelSeeds(t, []uint64{1, 2, 3}) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			newModelRun(t, seed, modelConfig{ops: ops, maxLen: 24}).run()
		})
	}
}

// TestModelUnstored is TestModel with a small MaxFileSize: some files are
// fingerprinted but not stored. Restores keep them (and say so) and never
// write a wrong content.
func TestModelUnstored(t *testing.T) {
	ops := 500
	if longTests() {
		ops = 100000
	}
	for _, seed := range modelSeeds(t, []uint64{11, 12}) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			newModelRun(t, seed, modelConfig{ops: ops, maxLen: 40, maxFileSize: 24}).run()
		})
	}
}

// ---- focused cases (each found by the model) ----

// writeTree creates tr under root: files with their exec bit, symlinks.
func writeMTree(t testing.TB, root string, tr mtree) {
	t.Helper()
	for _, p := range sortedKeys(tr) {
		n := tr[p]
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(abs)
		var err error
		if n.kind == store.Symlink {
			err = os.Symlink(n.data, abs)
		} else {
			mode := fs.FileMode(0o644)
			if n.exec {
				mode = 0o755
			}
			if err = os.WriteFile(abs, []byte(n.data), mode); err == nil {
				err = os.Chmod(abs, mode)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func mfile(data string) mnode { return mnode{kind: store.File, data: data} }
func mlink(to string) mnode   { return mnode{kind: store.Symlink, data: to} }
func storedAll(mnode) bool    { return true }
func mustNil(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// importTree makes a workspace holding tr and imports it.
func importMTree(t *testing.T, tr mtree) (*Workspace, string, store.Checkpoint) {
	t.Helper()
	root, state := t.TempDir(), t.TempDir()
	writeMTree(t, root, tr)
	ws, err := Open(state, root, Options{LockTimeout: time.Second, Workers: 2})
	mustNil(t, err)
	t.Cleanup(func() { ws.Close() })
	cp, _, err := ws.Import(context.Background(), modelWalk(root))
	mustNil(t, err)
	return ws, root, cp
}

// TestCaptureDirectoryPath: the watcher hands Capture the path of a
// directory that appeared (created or moved in) together with the files in
// it. Capture must leave the store equal to the disk.
func TestCaptureDirectoryPath(t *testing.T) {
	cases := []struct {
		name   string
		before mtree
		change func(t *testing.T, root string)
		paths  []string
	}{
		{
			name:   "directory that still holds its files",
			before: mtree{"d/f": mfile("1"), "d/g": mfile("2")},
			change: func(t *testing.T, root string) {},
			paths:  []string{"d"},
		},
		{
			name:   "directory removed and made again with the same names, in one batch",
			before: mtree{"d/f": mfile("1"), "d/g": mfile("2"), "h": mfile("3")},
			change: func(t *testing.T, root string) {
				mustNil(t, os.RemoveAll(filepath.Join(root, "d")))
				writeMTree(t, root, mtree{"d/f": mfile("1"), "d/g": mfile("changed")})
			},
			paths: []string{"d", "d/f", "d/g"},
		},
		{
			name:   "directory moved over a removed one (rm -rf b; mv a b)",
			before: mtree{"a/f": mfile("new f"), "b/f": mfile("old f"), "b/g": mfile("old g")},
			change: func(t *testing.T, root string) {
				mustNil(t, os.RemoveAll(filepath.Join(root, "b")))
				mustNil(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")))
			},
			paths: []string{"a", "a/f", "b", "b/f", "b/g"},
		},
		{
			name:   "directory replaced by a file",
			before: mtree{"d/f": mfile("1"), "d/e/g": mfile("2")},
			change: func(t *testing.T, root string) {
				mustNil(t, os.RemoveAll(filepath.Join(root, "d")))
				writeMTree(t, root, mtree{"d": mfile("now a file")})
			},
			paths: []string{"d"},
		},
		{
			name:   "directory replaced by a symlink to a directory with the same names",
			before: mtree{"d/f": mfile("in d"), "e/f": mfile("in e")},
			change: func(t *testing.T, root string) {
				mustNil(t, os.RemoveAll(filepath.Join(root, "d")))
				mustNil(t, os.Symlink("e", filepath.Join(root, "d")))
			},
			paths: []string{"d", "d/f"},
		},
		{
			name:   "path under a symlinked directory",
			before: mtree{"e/f": mfile("in e"), "d": mlink("e")},
			change: func(t *testing.T, root string) {},
			paths:  []string{"d/f"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, root, _ := importMTree(t, c.before)
			c.change(t, root)
			mustNil(t, ws.Capture(context.Background(), c.paths))
			disk, _ := readMTree(t, root)
			if bad := storeMismatch(ws, disk, storedAll); len(bad) > 0 {
				t.Errorf("after Capture(%q) the store does not match the disk:\n  %s", c.paths, strings.Join(bad, "\n  "))
			}
		})
	}
}

// TestRestoreOverEmptyDirectories: an exact restore of a file where the
// workspace now has a directory must not fail because directories that hold
// no file are left in it (people's rm leaves them).
func TestRestoreOverEmptyDirectories(t *testing.T) {
	for _, target := range []mnode{mfile("a file"), mlink("elsewhere")} {
		t.Run(map[store.Kind]string{store.File: "file", store.Symlink: "symlink"}[target.kind], func(t *testing.T) {
			ws, root, cp := importMTree(t, mtree{"a": target, "b": mfile("b")})
			mustNil(t, os.Remove(filepath.Join(root, "a")))
			mustNil(t, os.MkdirAll(filepath.Join(root, "a/sub/empty"), 0o755))
			writeMTree(t, root, mtree{"a/f": mfile("f"), "a/sub/g": mfile("g")})
			mustNil(t, os.Remove(filepath.Join(root, "a/sub/g"))) // leaves a/sub and a/sub/empty, no file
			mustNil(t, ws.Reconcile(context.Background(), modelWalk(root)))
			res, err := ws.Restore(context.Background(), cp, RestoreOptions{})
			mustNil(t, err)
			for _, r := range res.Restored {
				if r.Err != nil {
					t.Errorf("restore of %s failed: %v", r.Path, r.Err)
				}
			}
			disk, strays := readMTree(t, root)
			if d := describeMDiff(disk, mtree{"a": target, "b": mfile("b")}); d != "" || len(strays) > 0 {
				t.Errorf("after an exact restore the disk differs from the checkpoint:%s (strays %v)", d, strays)
			}
		})
	}
}

// TestDiffBackwards: Diff(from, to) with from after to is the way back:
// what differs between the two positions, from's state to to's.
func TestDiffBackwards(t *testing.T) {
	ws, root, cp0 := importMTree(t, mtree{"f": mfile("1"), "gone": mfile("x")})
	writeMTree(t, root, mtree{"f": mfile("2"), "new": mfile("n")})
	mustNil(t, os.Remove(filepath.Join(root, "gone")))
	mustNil(t, ws.Reconcile(context.Background(), modelWalk(root)))
	cp1, err := ws.Cut(ReasonManual, "", store.Attr{})
	mustNil(t, err)
	for _, c := range []struct {
		from, to uint64
		want     map[string]store.ChangeKind
	}{
		{cp0.Seq, cp1.Seq, map[string]store.ChangeKind{"f": store.Modified, "gone": store.Deleted, "new": store.Added}},
		{cp1.Seq, cp0.Seq, map[string]store.ChangeKind{"f": store.Modified, "gone": store.Added, "new": store.Deleted}},
	} {
		fcs, err := ws.Diff(c.from, c.to, nil, nil)
		mustNil(t, err)
		got := map[string]store.ChangeKind{}
		for _, fc := range fcs {
			got[fc.Path] = fc.Kind
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Diff(%d, %d) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}

// TestCaptureDuplicatePaths: a path named twice in one Capture is captured
// once (a watcher batch may name a path for two events).
func TestCaptureDuplicatePaths(t *testing.T) {
	ws, root, _ := importMTree(t, mtree{"f": mfile("1")})
	writeMTree(t, root, mtree{"f": mfile("2"), "g": mfile("new")})
	head := ws.Head()
	mustNil(t, ws.Capture(context.Background(), []string{"f", "g", "f", "g"}))
	disk, _ := readMTree(t, root)
	if bad := storeMismatch(ws, disk, storedAll); len(bad) > 0 {
		t.Errorf("after a Capture that names paths twice the store does not match the disk:\n  %s", strings.Join(bad, "\n  "))
	}
	if n := ws.Head() - head; n != 2 {
		t.Errorf("%d journal entries for two changed paths", n)
	}
}
