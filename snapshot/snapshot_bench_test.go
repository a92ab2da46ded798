package snapshot

// Engine benchmarks. The bench/ harness measures whole commands against
// shadow git (BENCHMARKS.md); these isolate the engine's parts, for
// profiling:
//
//	go test ./snapshot -run '^$' -bench . -benchtime 3x -cpuprofile /tmp/cpu.pprof
//	go tool pprof -top snapshot.test /tmp/cpu.pprof

import (
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// benchOld is the mtime of generated files: old, so no scan sees them as
// racy.
var benchOld = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

var benchWords = strings.Fields(`func return if else for range var const type struct interface map chan
go defer err ctx string int byte error nil true false fmt Sprintf errors New os Open path Join strings
store snapshot journal entry checkpoint restore fingerprint handler request response value key index
// TODO: { } ( ) [ ] := == != && || 0 1 16 64 1024 "ok" "error: %w"`)

// benchText is n bytes of code-like text (compresses about 3-4x).
func benchText(r *rand.Rand, n int) []byte {
	b := make([]byte, 0, n+64)
	for len(b) < n {
		b = append(b, strings.Repeat("\t", r.IntN(3))...)
		for k := 2 + r.IntN(8); k > 0; k-- {
			b = append(b, benchWords[r.IntN(len(benchWords))]...)
			b = append(b, ' ')
		}
		b = append(b, '\n')
	}
	return b[:n]
}

func benchRandom(r *rand.Rand, n int) []byte {
	b := make([]byte, 0, n+8)
	for len(b) < n {
		b = binary.LittleEndian.AppendUint64(b, r.Uint64())
	}
	return b[:n]
}

// benchTree writes n files (1-20 KB text, 4% binaries) in directories of
// about 15 files, with old mtimes, and returns their paths.
func benchTree(b *testing.B, root string, n int) []string {
	b.Helper()
	var paths []string
	for i := range n {
		r := rand.New(rand.NewPCG(7, uint64(i)))
		rel := fmt.Sprintf("d%03d/s%02d/f%05d.go", i/150, (i/15)%10, i)
		var data []byte
		if r.IntN(25) == 0 {
			data = benchRandom(r, 16<<10+r.IntN(100<<10))
		} else {
			data = benchText(r, int(1024*math.Pow(20, r.Float64())))
		}
		abs := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(abs, benchOld, benchOld); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, rel)
	}
	return paths
}

// benchWalk lists every regular file and symlink under root (sequential;
// watcher's BenchmarkWalk measures the real walker).
func benchWalk(root string) WalkFunc {
	return func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
		var walk func(dir string) error
		walk = func(dir string) error {
			ents, err := os.ReadDir(filepath.Join(root, dir))
			if err != nil {
				return err
			}
			for _, e := range ents {
				rel := path.Join(dir, e.Name())
				if e.IsDir() {
					if e.Name() == ".git" {
						continue
					}
					if err := walk(rel); err != nil {
						return err
					}
					continue
				}
				if strings.HasPrefix(e.Name(), InternalPrefix) {
					continue
				}
				info, err := os.Lstat(filepath.Join(root, rel))
				if err != nil {
					continue
				}
				if info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0 {
					if err := visit(rel, info); err != nil {
						return err
					}
				}
			}
			return ctx.Err()
		}
		return walk("")
	}
}

// benchWorkspace is an imported workspace of n files.
func benchWorkspace(b *testing.B, n int) (*Workspace, []string) {
	b.Helper()
	root, state := b.TempDir(), b.TempDir()
	paths := benchTree(b, root, n)
	ws, err := Open(state, root, Options{MaxFileSize: 50 << 20, LockTimeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	if _, _, err := ws.Import(context.Background(), benchWalk(root)); err != nil {
		b.Fatal(err)
	}
	return ws, paths
}

// benchModify appends a line to each path and captures the changes.
func benchModify(b *testing.B, ws *Workspace, paths []string, tag string) {
	b.Helper()
	for _, p := range paths {
		f, err := os.OpenFile(filepath.Join(ws.root, p), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "// %s\n", tag)
		f.Close()
	}
	if err := ws.Capture(context.Background(), paths); err != nil {
		b.Fatal(err)
	}
}

// spread picks n of paths, evenly spaced.
func spread(paths []string, n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, paths[i*len(paths)/n])
	}
	return out
}

// BenchmarkReadHash reads, hashes and encodes (zstd) one file: the work
// copy-on-change does per changed file.
func BenchmarkReadHash(b *testing.B) {
	root, state := b.TempDir(), b.TempDir()
	ws, err := Open(state, root, Options{MaxFileSize: 50 << 20, LockTimeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"text-1KiB", benchText(r, 1<<10)},
		{"text-16KiB", benchText(r, 16<<10)},
		{"text-256KiB", benchText(r, 256<<10)},
		{"text-4MiB", benchText(r, 4<<20)},
		{"random-256KiB", benchRandom(r, 256<<10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			name := c.name + ".txt"
			if err := os.WriteFile(filepath.Join(root, name), c.data, 0o644); err != nil {
				b.Fatal(err)
			}
			info, err := os.Lstat(filepath.Join(root, name))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			var stored int
			wsRoot, err := os.OpenRoot(root)
			if err != nil {
				b.Fatal(err)
			}
			defer wsRoot.Close()
			for b.Loop() {
				o := ws.read(wsRoot, nil, name, candidate{path: name, info: info})
				if o.err != nil {
					b.Fatal(o.err)
				}
				stored = 0
				for _, ch := range o.chunks {
					stored += len(ch)
				}
			}
			b.ReportMetric(float64(stored)/float64(len(c.data)), "stored/byte")
		})
	}
}

// BenchmarkReconcileNoChange is the embedded client's scan of an unchanged
// 10k-file workspace: walk, lstat, compare with the entries, hash nothing.
func BenchmarkReconcileNoChange(b *testing.B) {
	ws, _ := benchWorkspace(b, 10_000)
	walk := benchWalk(ws.root)
	ctx := context.Background()
	head := ws.Head()
	b.ReportAllocs()
	for b.Loop() {
		if err := ws.Reconcile(ctx, walk); err != nil {
			b.Fatal(err)
		}
	}
	if ws.Head() != head {
		b.Fatalf("a no-change reconcile journaled %d entries", ws.Head()-head)
	}
}

// BenchmarkImport is the first import of a 10k-file workspace (about 80 MB):
// walk, read, hash, compress, store, cut the initial checkpoint.
func BenchmarkImport(b *testing.B) {
	root := b.TempDir()
	paths := benchTree(b, root, 10_000)
	var total int64
	for _, p := range paths {
		info, _ := os.Lstat(filepath.Join(root, p))
		total += info.Size()
	}
	walk := benchWalk(root)
	ctx := context.Background()
	b.SetBytes(total)
	var size int64
	for b.Loop() {
		b.StopTimer()
		state, err := os.MkdirTemp(b.TempDir(), "state")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ws, err := Open(state, root, Options{MaxFileSize: 50 << 20, LockTimeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := ws.Import(ctx, walk); err != nil {
			b.Fatal(err)
		}
		if err := ws.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		size = benchDU(state)
		os.RemoveAll(state)
		b.StartTimer()
	}
	b.ReportMetric(float64(size)/float64(total), "store/byte")
}

// benchDU is what du says: allocated blocks, not apparent sizes (Badger
// preallocates files it has barely written).
func benchDU(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				if st, ok := info.Sys().(*syscall.Stat_t); ok {
					n += st.Blocks * 512
				}
			}
		}
		return nil
	})
	return n
}

// BenchmarkCheckpointCut cuts a checkpoint on a 1k-file workspace: one
// record and a sync. The daemon's checkpoint is this plus the sync barrier.
func BenchmarkCheckpointCut(b *testing.B) {
	ws, _ := benchWorkspace(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ws.Cut(ReasonManual, "", store.Attr{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCapture10 captures 10 changed files, as the daemon does for a
// batch of dirty paths.
func BenchmarkCapture10(b *testing.B) {
	ws, paths := benchWorkspace(b, 1000)
	sel := spread(paths, 10)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for _, p := range sel {
			f, err := os.OpenFile(filepath.Join(ws.root, p), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(f, "// %d\n", i)
			f.Close()
		}
		i++
		b.StartTimer()
		if err := ws.Capture(context.Background(), sel); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStateAt looks up one path's state at a checkpoint in a 10k-file
// store with 20 checkpoints of 500 changes each.
func BenchmarkStateAt(b *testing.B) {
	ws, paths := benchWorkspace(b, 10_000)
	var seqs []uint64
	for k := range 20 {
		r := rand.New(rand.NewPCG(3, uint64(k)))
		sel := make([]string, 0, 500)
		for range 500 {
			sel = append(sel, paths[r.IntN(len(paths))])
		}
		sort.Strings(sel)
		benchModify(b, ws, compact(sel), fmt.Sprint(k))
		cp, err := ws.Cut(ReasonManual, "", store.Attr{})
		if err != nil {
			b.Fatal(err)
		}
		seqs = append(seqs, cp.Seq)
	}
	r := rand.New(rand.NewPCG(4, 4))
	b.ReportAllocs()
	err := ws.st.View(func(rd *store.Reader) error {
		for b.Loop() {
			p := paths[r.IntN(len(paths))]
			st, err := rd.StateAt(p, seqs[r.IntN(len(seqs))])
			if err != nil {
				return err
			}
			if !st.Exists() {
				return fmt.Errorf("%s absent", p)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func compact(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// BenchmarkRestorePlan plans an exact restore (DryRun) of a 10k-file
// workspace after 10 or 1000 files changed: diff from the journal, state
// at the target for each path, symlink preflight.
func BenchmarkRestorePlan(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("changed=%d", n), func(b *testing.B) {
			ws, paths := benchWorkspace(b, 10_000)
			base, err := ws.Cut(ReasonManual, "", store.Attr{})
			if err != nil {
				b.Fatal(err)
			}
			benchModify(b, ws, spread(paths, n), "x")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := ws.Restore(ctx, base, RestoreOptions{DryRun: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Restored) != n {
					b.Fatalf("plan restores %d paths, want %d", len(res.Restored), n)
				}
			}
		})
	}
}

// BenchmarkDriftAfterRestores is status's diff when the current checkpoint
// was restored to after a long history: rounds of 1000 changed paths, each
// restored back, then 10 paths changed. It reads the journal since the last
// restore settled (10 entries), not the rounds in between.
func BenchmarkDriftAfterRestores(b *testing.B) {
	ws, paths := benchWorkspace(b, 10_000)
	base, err := ws.Cut(ReasonManual, "", store.Attr{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for round := range 5 {
		benchModify(b, ws, spread(paths, 1000), fmt.Sprint("round ", round))
		if _, err := ws.Restore(ctx, base, RestoreOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	benchModify(b, ws, spread(paths, 10), "drift")
	b.ReportAllocs()
	for b.Loop() {
		fcs, err := ws.Drift(base, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(fcs) != 10 {
			b.Fatalf("drift lists %d paths, want 10", len(fcs))
		}
	}
}
