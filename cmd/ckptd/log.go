package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

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

// logfAt adapts printf-style logging to the logger at level.
func logfAt(log *slog.Logger, level slog.Level) func(format string, args ...any) {
	return func(format string, args ...any) {
		log.Log(context.Background(), level, fmt.Sprintf(format, args...))
	}
}

// debugf is printf-style debug logging, or nil when debug is off (so that
// the server does not even time its requests).
func debugf(log *slog.Logger) func(format string, args ...any) {
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		return nil
	}
	return logfAt(log, slog.LevelDebug)
}

// watcherLogf logs the watcher's lines: routine re-walks as info, the rest
// (overflows, errors, watch limits) as warnings.
func watcherLogf(log *slog.Logger) func(format string, args ...any) {
	return func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		level := slog.LevelWarn
		if strings.Contains(msg, "re-walking") && !strings.Contains(msg, "overflow") ||
			strings.Contains(msg, "reloaded the workspace's configuration") ||
			strings.Contains(msg, "configuration is valid again") {
			level = slog.LevelInfo
		}
		log.Log(context.Background(), level, msg)
	}
}

// progressBar draws the first import's progress on stderr if it is a
// terminal; nil otherwise.
func progressBar(root string) func(done, total int) { return progress.Import(root) }
