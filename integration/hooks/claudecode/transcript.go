package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"
)

// Claude Code writes each session's conversation to transcript_path, one
// JSON object a line. When the person interrupts the agent (Esc, or the
// SDK's interrupt), it sends no hook event at all, neither PostToolUse nor
// Stop, but appends a user message whose text starts with interruptMarker,
// with its time; 2.1.332 writes
//
//	{"type":"user","message":{"role":"user","content":[{"type":"text",
//	 "text":"[Request interrupted by user for tool use]"}]},
//	 "timestamp":"2026-12-01T10:54:47.806Z",...}
//
// ("[Request interrupted by user]" when no tool was running).
const interruptMarker = "[Request interrupted by user"

// maxTranscriptLine bounds one transcript line ckpt reads; longer lines (a
// large tool result) are skipped.
const maxTranscriptLine = 8 << 20

// TranscriptTail is how much of the end of a transcript a hook reads to
// look for an interrupt it missed.
const TranscriptTail = 4 << 20

type transcriptLine struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Sidechain bool   `json:"isSidechain"`
	Message   struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// interruptAt parses one transcript line: the time of the interrupt it
// records, if it records one.
func interruptAt(line []byte) (time.Time, bool) {
	if !bytes.Contains(line, []byte(interruptMarker)) {
		return time.Time{}, false
	}
	var l transcriptLine
	if json.Unmarshal(line, &l) != nil || l.Type != "user" || l.Sidechain {
		return time.Time{}, false
	}
	if !contentStartsWith(l.Message.Content, interruptMarker) {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, l.Timestamp)
	return at, err == nil
}

// contentStartsWith reports whether a message's content, a string or a
// list of blocks, has a text starting with prefix.
func contentStartsWith(raw json.RawMessage, prefix string) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.HasPrefix(s, prefix)
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		if b.Type == "text" && strings.HasPrefix(b.Text, prefix) {
			return true
		}
	}
	return false
}

// FindInterrupt reads the transcript at path from offset (dropping the
// partial line there when offset > 0) to its last complete line, and
// returns the first interrupt recorded at or after since, and the offset
// after the last complete line read. A transcript that does not exist
// holds no interrupt.
func FindInterrupt(path string, offset int64, since time.Time) (at time.Time, found bool, next int64, err error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return time.Time{}, false, offset, nil
	}
	if err != nil {
		return time.Time{}, false, offset, err
	}
	defer f.Close()
	// Unless offset starts a line, the line it falls in was read before
	// (or is cut by a tail): skip it.
	skip := false
	if offset > 0 {
		var prev [1]byte
		if _, err := f.ReadAt(prev[:], offset-1); err != nil {
			return time.Time{}, false, offset, err
		}
		skip = prev[0] != '\n'
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return time.Time{}, false, offset, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	next = offset
	var line []byte
	n, long := 0, false
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if !long && len(line)+len(chunk) > maxTranscriptLine {
			long, line = true, line[:0]
		} else if !long {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil { // EOF: a partial last line is read next time
			return time.Time{}, false, next, nil
		}
		next += int64(n)
		if !long && !skip {
			if t, ok := interruptAt(line); ok && !t.Before(since) {
				return t, true, next, nil
			}
		}
		skip, long, line, n = false, false, line[:0], 0
	}
}

// InterruptSince looks for an interrupt recorded at or after since in the
// last TranscriptTail bytes of the transcript.
func InterruptSince(path string, since time.Time) (time.Time, bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return time.Time{}, false, nil
		}
		return time.Time{}, false, err
	}
	offset := max(info.Size()-TranscriptTail, 0)
	at, found, _, err := FindInterrupt(path, offset, since)
	return at, found, err
}
