package main

import (
	"log/slog"
	"os"

	"github.com/ckptdev/ckpt/cmd/internal/progress"
)

// newLogger logs to stderr (the journal, under systemd) at level and above.
func newLogger(level string) *slog.Logger {
	var l slog.Level
	switch level {
	case "debug":
		l = slog.LevelDebug
	case "warn":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// progressBar draws the first import's progress on stderr if it is a
// terminal; nil otherwise.
func progressBar(root string) func(done, total int) { return progress.Import(root) }
