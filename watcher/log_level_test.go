package watcher

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log destination for several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines are the logged lines that contain s.
func (l *lockedBuffer) lines(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// TestLogLevelsChosenWhereRaised: a routine re-walk (the periodic one) is
// info; a re-walk after lost events (an overflow) is a warning.
func TestLogLevelsChosenWhereRaised(t *testing.T) {
	var buf lockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	root := t.TempDir()
	h := start(t, root, Options{QueueSize: 4, RescanInterval: 50 * time.Millisecond, Logger: log})
	for i := range 300 {
		writeFile(t, root, fmt.Sprintf("d%d/f%d", i%7, i), "x")
	}
	h.check("after overflow")
	deadline := time.Now().Add(10 * time.Second)
	for len(buf.lines("periodic re-walk")) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	periodic := buf.lines("periodic re-walk")
	if len(periodic) == 0 || !strings.Contains(periodic[0], "level=INFO") {
		t.Errorf("periodic re-walk logged as %q, want level=INFO", periodic)
	}
	if h.w.Stats().Overflows == 0 {
		t.Skip("the queue did not overflow")
	}
	var overflow []string
	for _, l := range buf.lines("re-walking") {
		if !strings.Contains(l, "periodic") {
			overflow = append(overflow, l)
		}
	}
	if len(overflow) == 0 || !strings.Contains(overflow[0], "level=WARN") {
		t.Errorf("re-walk after an overflow logged as %q, want level=WARN", overflow)
	}
}
