package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// treeSpec is one workspace to measure: a copy of a real directory, or a
// synthetic tree of n files.
type treeSpec struct {
	Name  string // "goroot", "1k", "10k", "40k"
	Files int    // synthetic file count; 0 for a copy
	Copy  string // directory to copy with cp -a
}

// oldTime is the mtime every synthetic file gets: most files in a real
// workspace are old, and neither ckpt nor git should see them as racy.
var oldTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// vocabulary for code-like text: compresses like source code (about 3-4x).
var vocab = strings.Fields(`func return if else for range var const type struct interface map chan
go defer select case switch default break continue nil true false err ctx string int int64 uint64
byte error bool len cap make append copy delete panic recover fmt Println Sprintf Errorf errors New
Is As os Open Create ReadFile WriteFile path filepath Join Dir Base strings HasPrefix Split Fields
bytes Buffer Write Read Close sync Mutex Lock Unlock WaitGroup Add Done Wait time Now Since Duration
context Context Background WithCancel store snapshot journal entry checkpoint restore fingerprint
handler request response server client config options value key index count total result buffer
reader writer stream event queue worker pool batch commit offset length header payload status
// TODO: the value returned here must be checked before use.  /* comment */ = := == != <= >= && ||
{ } ( ) [ ] ; , . 0 1 2 8 16 32 64 128 256 1024 4096 0x7f 0xff "ok" "error: %w" "%s/%d" 'x'`)

// linePool is a fixed set of code-like lines that text files are made of.
var linePool = func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	pool := make([]string, 16384)
	for i := range pool {
		var b strings.Builder
		b.WriteString(strings.Repeat("\t", r.IntN(4)))
		n := 2 + r.IntN(10)
		for j := 0; j < n; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[r.IntN(len(vocab))])
		}
		if r.IntN(5) == 0 {
			fmt.Fprintf(&b, " // %d", r.IntN(100000))
		}
		b.WriteByte('\n')
		pool[i] = b.String()
	}
	return pool
}()

var textExts = []string{".go", ".go", ".go", ".md", ".txt", ".json", ".yaml", ".c", ".h", ".py", ".ts", ".html"}
var binExts = []string{".png", ".bin", ".gz", ".o"}

// fileSize draws a realistic size: mostly 1-20 KB text, some small files,
// a few larger texts and some binaries.
func fileSize(r *rand.Rand) (size int, binary bool) {
	logUniform := func(lo, hi float64) int {
		u := r.Float64()
		return int(lo * math.Pow(hi/lo, u))
	}
	switch p := r.IntN(100); {
	case p < 4: // binaries 16-256 KiB
		return logUniform(16<<10, 256<<10), true
	case p < 12: // small files
		return logUniform(100, 1<<10), false
	case p < 15: // larger texts
		return logUniform(20<<10, 100<<10), false
	default:
		return logUniform(1<<10, 20<<10), false
	}
}

// genTree writes a deterministic synthetic tree of n files under dir:
// nested directories (a 6-ary tree, ~15 files each), code-like text,
// some binaries, some duplicates, a few executables and symlinks.
func genTree(dir string, n int) (int64, error) {
	ndirs := max(1, (n+14)/15)
	dirs := make([]string, ndirs)
	names := []string{"pkg", "internal", "cmd", "src", "lib", "util", "api", "docs", "test", "core"}
	for j := 1; j < ndirs; j++ {
		parent := dirs[(j-1)/6]
		name := fmt.Sprintf("%s%d", names[j%len(names)], j)
		if parent == "" {
			dirs[j] = name
		} else {
			dirs[j] = parent + "/" + name
		}
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return 0, err
		}
	}
	dup := []byte(strings.Repeat("Copyright (c) 2024 The Authors. All rights reserved.\n", 40))
	// Each file depends only on its index, so the files are written by a
	// few goroutines at once (a 1M-file tree takes minutes otherwise);
	// the tree is the same whatever their number.
	workers := min(4, max(1, n/1000))
	var (
		mu       sync.Mutex
		total    int64
		firstErr error
		symlinks [][2]string
		wg       sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 300<<10)
			var sum int64
			var links [][2]string
			var err error
			for i := w; i < n && err == nil; i += workers {
				var size int64
				var link [2]string
				size, link, err = genFile(dir, dirs[i%ndirs], i, dup, &buf)
				sum += size
				if link[0] != "" {
					links = append(links, link)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			total += sum
			symlinks = append(symlinks, links...)
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	for _, s := range symlinks {
		if err := os.Symlink(s[0], s[1]); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// genFile writes file i of a synthetic tree into the directory d under
// dir, and returns its size and, for one file in 500, the symlink to make
// to it (target, link path).
func genFile(dir, d string, i int, dup []byte, bufp *[]byte) (int64, [2]string, error) {
	r := rand.New(rand.NewPCG(42, uint64(i)))
	size, bin := fileSize(r)
	var name string
	mode := fs.FileMode(0o644)
	buf := (*bufp)[:0]
	defer func() { *bufp = buf }()
	switch {
	case r.IntN(100) == 0:
		name = fmt.Sprintf("LICENSE%d", i)
		buf = append(buf, dup...)
	case bin:
		name = fmt.Sprintf("asset_%d%s", i, binExts[r.IntN(len(binExts))])
		for len(buf) < size {
			buf = binary.LittleEndian.AppendUint64(buf, r.Uint64())
		}
		buf = buf[:size]
	default:
		ext := textExts[r.IntN(len(textExts))]
		if r.IntN(100) == 0 {
			ext, mode = ".sh", 0o755
		}
		name = fmt.Sprintf("%s_%d%s", vocab[r.IntN(60)], i, ext)
		for len(buf) < size {
			buf = append(buf, linePool[r.IntN(len(linePool))]...)
		}
	}
	rel := name
	if d != "" {
		rel = d + "/" + name
	}
	var link [2]string
	p := filepath.Join(dir, rel)
	if err := os.WriteFile(p, buf, mode); err != nil {
		return 0, link, err
	}
	if err := os.Chmod(p, mode); err != nil {
		return 0, link, err
	}
	if i%500 == 250 {
		link = [2]string{name, filepath.Join(dir, d, "link_"+name)}
	}
	if err := os.Chtimes(p, oldTime, oldTime); err != nil {
		return 0, link, err
	}
	return int64(len(buf)), link, nil
}

// trackedFiles lists the regular files git tracks in the shadow repo: the
// same set ckpt captures (both honour .gitignore). Mutations pick from it.
func trackedFiles(g *shadow) ([]string, error) {
	out, err := g.output("ls-files", "-z", "-s")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		// "<mode> <sha> <stage>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok || strings.HasPrefix(meta, "120000") || strings.HasPrefix(meta, "160000") {
			continue
		}
		files = append(files, path)
	}
	sort.Strings(files)
	return files, nil
}

// pick returns n paths spread evenly over files.
func pick(files []string, n int) []string {
	n = min(n, len(files))
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, files[i*len(files)/n])
	}
	return out
}

// mutation is a set of edits applied identically to both workspaces.
type mutation struct {
	Modify []string // append a line
	Delete []string
	Add    []string // new files
}

// modifyOnly edits n files.
func modifyOnly(files []string, n int) mutation { return mutation{Modify: pick(files, n)} }

// mixed edits n files the way an agent turn does: most modified, some
// deleted, some added (in a new directory and next to existing files).
func mixed(files []string, n int, tag string) mutation {
	sel := pick(files, n)
	nd := n / 10
	na := n / 10
	m := mutation{Delete: sel[:nd], Modify: sel[nd : n-na]}
	for i := 0; i < na; i++ {
		if i%2 == 0 {
			m.Add = append(m.Add, fmt.Sprintf("bench-new-%s/d%d/new_%d.go", tag, i%7, i))
		} else {
			m.Add = append(m.Add, filepath.ToSlash(filepath.Join(filepath.Dir(sel[i]), fmt.Sprintf("new_%s_%d.go", tag, i))))
		}
	}
	return m
}

func (m mutation) count() int { return len(m.Modify) + len(m.Delete) + len(m.Add) }

// apply makes the edits under root; tag makes each run's bytes new.
func (m mutation) apply(root, tag string) error {
	line := []byte("// edited by bench " + tag + "\n")
	for _, p := range m.Modify {
		f, err := os.OpenFile(filepath.Join(root, p), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	for _, p := range m.Delete {
		if err := os.Remove(filepath.Join(root, p)); err != nil {
			return err
		}
	}
	for i, p := range m.Add {
		abs := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		w, err := os.Create(abs)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(w)
		fmt.Fprintf(bw, "package bench // %s %d\n", tag, i)
		for j := 0; j < 100; j++ {
			bw.WriteString(linePool[(i*100+j)%len(linePool)])
		}
		err = bw.Flush()
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
