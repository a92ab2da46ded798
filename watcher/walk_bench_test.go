package watcher

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// walkBenchTree writes a 20,000-file workspace: 1,000 leaf directories of
// 20 files under 10×10 inner ones, plus an ignored node_modules that the walk
// must not enter. It returns the number of files a walk visits.
func walkBenchTree(b *testing.B, root string) int {
	b.Helper()
	write := func(dir string, n int) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for k := range n {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", k)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	files := 0
	for i := range 10 {
		for j := range 10 {
			for k := range 10 {
				write(filepath.Join(root, fmt.Sprintf("pkg%d/sub%d/leaf%d", i, j, k)), 20)
				files += 20
			}
		}
	}
	write(filepath.Join(root, "node_modules/dep"), 200)
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("node_modules/\n*.o\nbuild/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return files + 1
}

// BenchmarkWalk walks a 20,000-file tree (page cache warm), with the default
// and other worker counts, and counts its directories.
func BenchmarkWalk(b *testing.B) {
	root := b.TempDir()
	want := walkBenchTree(b, root)
	ig := NewIgnorer(root, nil)
	for _, workers := range []int{0, 1, 2, 4, 8, 16, 32} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			w := &Walker{Root: root, Ignorer: ig, Workers: workers}
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				err := w.Walk(context.Background(), func(string, fs.FileInfo) error {
					n++
					return nil
				})
				if err != nil || n != want {
					b.Fatalf("walk: %v, %d files, want %d", err, n, want)
				}
			}
			b.ReportMetric(float64(want), "files/op")
		})
	}
	b.Run("dirs", func(b *testing.B) {
		w := &Walker{Root: root, Ignorer: ig}
		b.ReportAllocs()
		for b.Loop() {
			if n, err := w.Dirs(context.Background()); err != nil || n != 1111 {
				b.Fatalf("Dirs = %d, %v", n, err)
			}
		}
	})
}
