package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ignoreBenchRules is a .gitignore like a real project's: directory rules,
// globs, anchored and double-star patterns, a negation.
const ignoreBenchRules = `# build output
/bin/
/dist/
build/
*.o
*.a
*.so
*.log
*.tmp
*~
.DS_Store
node_modules/
vendor/**/testdata/
**/coverage/**
/docs/_site
*.pb.go
!keep.pb.go
src/**/generated_*.go
.idea/
.vscode/
__pycache__/
*.py[cod]
`

// BenchmarkIgnored decides 10,000 paths (files and their directories, 3-6
// levels deep, almost half of them ignored) with the root .gitignore above and
// a nested one: the work the walker and the daemon's event filter do per
// path. The ignore files are read once; the benchmark measures matching.
func BenchmarkIgnored(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte(ignoreBenchRules), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "src/app"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src/app/.gitignore"), []byte("*.gen\n/cache/\n!important.gen\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	exts := []string{".go", ".go", ".go", ".md", ".o", ".log", ".pb.go", ".gen", ".py", ".json"}
	tops := []string{"src/app", "src/lib", "internal", "cmd", "build", "docs", "vendor/x/testdata", "pkg"}
	paths := make([]string, 0, 10000)
	for i := range 10000 {
		dir := fmt.Sprintf("%s/m%d/s%d", tops[i%len(tops)], i%37, i%5)
		if i%3 == 0 {
			dir += fmt.Sprintf("/d%d", i%11)
		}
		paths = append(paths, fmt.Sprintf("%s/file%d%s", dir, i, exts[i%len(exts)]))
	}
	ig := NewIgnorer(root, nil)
	ignored := 0
	for _, p := range paths { // warm the per-directory caches, as a walk does
		if ig.Ignored(filepath.Dir(p), true) || ig.Ignored(p, false) {
			ignored++
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := paths[i%len(paths)]
		i++
		ig.Ignored(p, false)
	}
	b.ReportMetric(float64(ignored)/float64(len(paths)), "ignored/path")
}
