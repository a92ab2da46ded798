package drift

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRunViewReads is what the panel's run view reads for a
// 1,000-file run with 10,000 checkpoints in the history.
func BenchmarkRunViewReads(b *testing.B) {
	ctx := context.Background()
	e, root := newEngine(&testing.T{}, map[string]string{"seed": "x"})
	_ = root
	if _, err := e.RunStart(ctx, "s", "big"); err != nil {
		b.Fatal(err)
	}
	if _, err := e.ToolStart(ctx, ToolRequest{Session: "s", Run: "big", Call: "gen"}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		write(&testing.T{}, root, fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("package src\nvar V%d = %d\n", i, i))
	}
	if _, err := e.ToolEnd(ctx, ToolRequest{Session: "s", Run: "big", Call: "gen"}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.RunEnd(ctx, "s", "big"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if _, err := e.Checkpoint(ctx, "m"); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("RunDiff", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := e.RunDiff(ctx, RunRequest{Session: "s", Run: "big"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ToolCalls", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := e.ToolCalls(ctx, RunRequest{Session: "s", Run: "big"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Runs", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := e.Runs(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
