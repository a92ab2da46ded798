package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The storage bench: how much disk ckpt's store takes against a shadow git
// repository that commits the same sequence of states, then `git gc` (plain).
//
//	go run ./bench -storage                      # 500 agent turns, and tag-to-tag checkouts
//	go run ./bench -storage -storage-turns=100 -storage-modules=github.com/spf13/cobra@v1.5.0,v1.6.0
//
// Two scenarios, each with ckpt embedded (no daemon) and with ckptd
// running: (a) agent turns, each `ckpt run start`, edits to overlapping
// files, `ckpt checkpoint`, more edits, `ckpt run end`; (b) the source
// trees of a module's versions (from the Go module proxy, `go mod
// download`) written over the workspace one after the other, as a
// checkout between tags would, each followed by `ckpt checkpoint`. The
// shadow repository commits after each of the same steps.
var (
	storageMode    = flag.Bool("storage", false, "storage mode: measure the store against a gc'd shadow git repository (agent turns, tag-to-tag checkouts), print a table, write nothing")
	storageTurns   = flag.Int("storage-turns", 500, "with -storage: agent turns in the turns scenario (0 skips it)")
	storageModules = flag.String("storage-modules", "github.com/hashicorp/terraform@v1.5.0,v1.10.0,v1.14.0;github.com/spf13/cobra@v1.5.0,v1.6.0,v1.7.0,v1.8.0",
		"with -storage: modules whose versions are checked out one after the other, MODULE@V1,V2,...; separated by ';' (empty skips it)")
	storageModesFlag = flag.String("storage-modes", "embedded,daemon", "with -storage: the modes to measure ckpt in (embedded, daemon)")
)

// storageRow is one scenario in one mode.
type storageRow struct {
	Scenario    string
	Mode        string // embedded or daemon
	Steps       int    // checkpoints cut (shadow commits)
	Tree        int64  // the workspace's last tree, du bytes
	Running     int64  // the state directory while the daemon still runs (daemon mode)
	RunningGC   int64  // the same, after a `ckpt gc` through the daemon
	Closed      int64  // the state directory with no process holding the store
	AfterGC     int64  // after `ckpt gc`
	Git         int64  // the shadow .git before git gc
	GitGC       int64  // after git gc
	Seconds     float64
	GCFreedNote string
}

func (b *bench) storageRuns() error {
	var rows []storageRow
	for _, mode := range b.storageModes() {
		if *storageTurns > 0 {
			r, err := b.storageScenario("turns", mode, func(s *storageStep) error { return turnsScenario(s, *storageTurns) })
			if err != nil {
				return fmt.Errorf("turns (%s): %w", mode, err)
			}
			rows = append(rows, r)
		}
		for _, spec := range strings.Split(*storageModules, ";") {
			if spec = strings.TrimSpace(spec); spec == "" {
				continue
			}
			mod, versions, ok := strings.Cut(spec, "@")
			if !ok {
				return fmt.Errorf("bad -storage-modules entry %q (want MODULE@V1,V2,...)", spec)
			}
			vs := strings.Split(versions, ",")
			name := filepath.Base(mod) + " " + strings.Join(vs, "→")
			r, err := b.storageScenario(name, mode, func(s *storageStep) error { return checkoutScenario(s, mod, vs) })
			if err != nil {
				return fmt.Errorf("%s (%s): %w", name, mode, err)
			}
			rows = append(rows, r)
		}
	}
	fmt.Println(storageMarkdown(rows, b))
	return nil
}

func (b *bench) storageModes() []string {
	var modes []string
	for _, m := range strings.Split(*storageModesFlag, ",") {
		if m = strings.TrimSpace(m); m == "embedded" || m == "daemon" && b.ckptd != "" {
			modes = append(modes, m)
		}
	}
	return modes
}

// storageStep drives one scenario: both approaches see the same states.
type storageStep struct {
	ctx   context.Context
	tree  string
	c     *client
	g     *shadow
	steps int
}

// cut records the workspace as it is with both approaches. args are the
// ckpt command (checkpoint, run start, run end).
func (s *storageStep) cut(args ...string) error {
	if _, err := s.c.do(nil, args...); err != nil {
		return err
	}
	if _, err := s.g.checkpoint(); err != nil {
		return err
	}
	s.steps++
	return nil
}

func (b *bench) storageScenario(name, mode string, body func(*storageStep) error) (storageRow, error) {
	row := storageRow{Scenario: name, Mode: mode}
	dir := filepath.Join(b.work, "storage", strings.NewReplacer(" ", "-", "→", "-").Replace(name)+"-"+mode)
	os.RemoveAll(dir)
	tree, state, gitDir := filepath.Join(dir, "tree"), filepath.Join(dir, "state"), filepath.Join(dir, "shadow.git")
	for _, d := range []string{tree, state} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return row, err
		}
	}
	defer func() {
		if !b.o.keep {
			os.RemoveAll(dir)
		}
	}()
	s := &storageStep{ctx: b.ctx, tree: tree, c: newClient(b.ctx, b.work, b.ckpt, tree, state), g: newShadow(b.ctx, b.work, gitDir, tree)}
	if _, err := s.g.git("init", "-q"); err != nil {
		return row, err
	}
	var d *daemon
	if mode == "daemon" {
		var err error
		if d, _, err = startDaemon(b.ctx, b.ckptd, s.c, filepath.Join(dir, "ckptd.log")); err != nil {
			return row, err
		}
		s.c.daemon = d
		defer d.stop()
	}
	start := time.Now()
	if err := body(s); err != nil {
		return row, err
	}
	row.Seconds = time.Since(start).Seconds()
	row.Steps = s.steps
	if d != nil {
		// Let the daemon's background work settle, as a long session
		// would between turns: the recompression of the first import
		// (its mark goes when it is done), the flush of the memtables
		// once the store has been idle 10 s, and the idle maintenance
		// (repack and reclaim) once it has been idle 30 s.
		waitIdleWork(d, state, filepath.Join(dir, "ckptd.log"))
		row.Running = storeUsage(state)
		printStoreFiles(os.Stderr, state, "while the daemon runs")
		row.GCFreedNote = s.gc()
		row.RunningGC = storeUsage(state)
		if err := d.stop(); err != nil {
			return row, err
		}
		s.c.daemon = nil
		row.Closed = storeUsage(state)
	} else {
		row.Closed = storeUsage(state)
		row.GCFreedNote = s.gc()
	}
	row.AfterGC = storeUsage(state)
	if err := printStoreUsage(os.Stderr, state); err != nil {
		fmt.Fprintln(os.Stderr, "storage usage:", err)
	}
	row.Tree = diskUsage(tree)
	row.Git = diskUsage(gitDir)
	if _, err := s.g.gc(); err != nil {
		return row, err
	}
	row.GitGC = diskUsage(gitDir)
	fmt.Fprintf(os.Stderr, "storage %s (%s): %d steps in %.0fs; ckpt %s (running %s, after gc %s), git gc'd %s; bytes: closed %d, running %d, running after gc %d, after gc %d, git gc'd %d\n",
		name, mode, row.Steps, row.Seconds, fmtBytes(row.Closed), fmtBytes(row.Running), fmtBytes(row.AfterGC), fmtBytes(row.GitGC),
		row.Closed, row.Running, row.RunningGC, row.AfterGC, row.GitGC)
	return row, nil
}

// gc runs `ckpt gc` and says what it freed.
func (s *storageStep) gc() string {
	var gc struct {
		Checkpoints int `json:"checkpoints"`
		Blobs       int `json:"blobs"`
	}
	if _, err := s.c.do(&gc, "gc"); err != nil {
		return "ckpt gc: " + firstLine(err.Error())
	}
	return fmt.Sprintf("%d checkpoints, %d contents", gc.Checkpoints, gc.Blobs)
}

// turnsScenario is a long agent session on a small source tree: every
// turn edits a few files of an overlapping hot set (a line changed, lines
// added, a block moved), now and then adds a file (sometimes a copy of
// another), renames or deletes one, and checkpoints in the middle.
func turnsScenario(s *storageStep, turns int) error {
	rng := rand.New(rand.NewPCG(14, 500))
	var files []string
	for i := range 120 {
		p := fmt.Sprintf("pkg%d/file%03d.go", i%12, i)
		files = append(files, p)
		if err := writeRel(s.tree, p, codeText(rng, 40+rng.IntN(400))); err != nil {
			return err
		}
	}
	if err := s.cut("checkpoint", "-m", "start"); err != nil {
		return err
	}
	for t := range turns {
		session, run := "s1", fmt.Sprintf("r%d", t)
		if err := s.cut("run", "start", "--session", session, "--run", run); err != nil {
			return err
		}
		for half := range 2 {
			for range 1 + rng.IntN(4) {
				// 80% of edits go to the 16 first files: the hot set.
				i := rng.IntN(len(files))
				if rng.IntN(5) != 0 {
					i = rng.IntN(min(16, len(files)))
				}
				if err := editFile(rng, filepath.Join(s.tree, files[i])); err != nil {
					return err
				}
			}
			switch rng.IntN(20) {
			case 0: // a new file
				p := fmt.Sprintf("pkg%d/new%04d.go", rng.IntN(12), t)
				files = append(files, p)
				if err := writeRel(s.tree, p, codeText(rng, 20+rng.IntN(200))); err != nil {
					return err
				}
			case 1: // a copy of another file, slightly changed
				src := files[rng.IntN(len(files))]
				b, err := os.ReadFile(filepath.Join(s.tree, src))
				if err != nil {
					return err
				}
				p := fmt.Sprintf("pkg%d/copy%04d.go", rng.IntN(12), t)
				files = append(files, p)
				if err := writeRel(s.tree, p, append(b, "// copied\n"...)); err != nil {
					return err
				}
			case 2: // a rename
				i := 16 + rng.IntN(len(files)-16)
				p := fmt.Sprintf("pkg%d/moved%04d.go", rng.IntN(12), t)
				if err := os.Rename(filepath.Join(s.tree, files[i]), filepath.Join(s.tree, p)); err != nil {
					return err
				}
				files[i] = p
			case 3: // a delete
				if len(files) > 60 {
					i := 16 + rng.IntN(len(files)-16)
					if err := os.Remove(filepath.Join(s.tree, files[i])); err != nil {
						return err
					}
					files = append(files[:i], files[i+1:]...)
				}
			}
			if half == 0 {
				if err := s.cut("checkpoint", "-m", "mid-turn"); err != nil {
					return err
				}
			}
		}
		if err := s.cut("run", "end", "--session", session, "--run", run); err != nil {
			return err
		}
	}
	return nil
}

var words = strings.Fields("if err != nil { return } func for range := ctx context.Context string int64 byte len append make map struct type var const package import fmt.Errorf errors.Is path filepath.Join os.ReadFile store snapshot checkpoint journal blob hash state seq")

// codeText is n lines of Go-like text.
func codeText(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for range n {
		b.WriteString(strings.Repeat("\t", rng.IntN(4)))
		for range 2 + rng.IntN(8) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d\n", rng.IntN(1000))
	}
	return b.Bytes()
}

// editFile makes an agent-sized edit: a line replaced, a few lines added,
// or a block of lines moved.
func editFile(rng *rand.Rand, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(b), "\n")
	i := rng.IntN(len(lines))
	switch rng.IntN(3) {
	case 0:
		lines[i] = string(codeText(rng, 1))
	case 1:
		add := strings.SplitAfter(string(codeText(rng, 1+rng.IntN(12))), "\n")
		lines = append(lines[:i], append(add, lines[i:]...)...)
	default:
		j := min(len(lines), i+1+rng.IntN(10))
		block := append([]string{}, lines[i:j]...)
		rest := append(append([]string{}, lines[:i]...), lines[j:]...)
		k := rng.IntN(len(rest) + 1)
		lines = append(rest[:k], append(block, rest[k:]...)...)
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
}

func writeRel(root, rel string, b []byte) error {
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// checkoutScenario writes each version of mod over the workspace, as a
// checkout between tags does (only what differs is written; what the new
// version lacks is removed), and checkpoints each.
func checkoutScenario(s *storageStep, mod string, versions []string) error {
	for _, v := range versions {
		zipPath, err := downloadModule(s.ctx, mod, strings.TrimSpace(v))
		if err != nil {
			return err
		}
		if err := checkoutZip(s.tree, zipPath, mod+"@"+strings.TrimSpace(v)+"/"); err != nil {
			return err
		}
		if err := s.cut("checkpoint", "-m", v); err != nil {
			return err
		}
	}
	return nil
}

// downloadModule fetches a module version's zip through the Go module proxy.
func downloadModule(ctx context.Context, mod, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", mod, version, err)
	}
	var info struct{ Zip, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Zip == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s %v", mod, version, info.Error, err)
	}
	return info.Zip, nil
}

// checkoutZip makes tree hold exactly the files of a module zip, whose
// names all start with prefix (module@version/).
func checkoutZip(tree, zipPath, prefix string) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer zr.Close()
	want := map[string]bool{}
	for _, f := range zr.File {
		rel, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || rel == "" || strings.HasSuffix(f.Name, "/") {
			continue
		}
		want[rel] = true
		rc, err := f.Open()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		p := filepath.Join(tree, rel)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
			continue
		}
		if err := writeRel(tree, rel, b); err != nil {
			return err
		}
	}
	var gone []string
	filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(tree, p)
		if !want[rel] {
			gone = append(gone, p)
		}
		return nil
	})
	sort.Strings(gone)
	for _, p := range gone {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

func storageMarkdown(rows []storageRow, b *bench) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n`%s` (%s, %s CPUs, load %s)\n\n", commandLine(b.o), time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine()["nproc"], loadavg())
	sb.WriteString("| scenario | mode | checkpoints | last tree | ckpt store, daemon running | ckpt store (no daemon) | after `ckpt gc` | shadow .git | after `git gc` | ckpt / gc'd git | after `ckpt gc` / gc'd git |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		running := "—"
		if r.Mode == "daemon" {
			running = fmt.Sprintf("%s (%s); after `ckpt gc` %s (%s)", fmtBytes(r.Running), sizeRatio(r.Running, r.GitGC), fmtBytes(r.RunningGC), sizeRatio(r.RunningGC, r.GitGC))
		}
		fmt.Fprintf(&sb, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Scenario, r.Mode, r.Steps, fmtBytes(r.Tree),
			running, fmtBytes(r.Closed), fmtBytes(r.AfterGC), fmtBytes(r.Git), fmtBytes(r.GitGC), sizeRatio(r.Closed, r.GitGC), sizeRatio(r.AfterGC, r.GitGC))
	}
	return sb.String()
}

// storeUsage is what du reports for the state directory, less each
// workspace's reserve file: space the store sets aside (fallocate) so that
// it can still close on a full disk, the same 10 MiB whatever it holds.
func storeUsage(state string) int64 {
	n := diskUsage(state)
	ws, _ := filepath.Glob(filepath.Join(state, "workspaces", "*", "reserve"))
	for _, r := range ws {
		n -= diskUsage(r)
	}
	return n
}
