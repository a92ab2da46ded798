package textdiff

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// binarySniffLen is how many leading bytes are searched for a NUL byte
// when deciding whether content is binary (the same window git uses).
const binarySniffLen = 8000

// Unified returns a unified diff (like `diff -u` / git diff) from a to b, with the headers
// "--- a/<name>" and "+++ b/<name>" (use "/dev/null" for the side that does not exist: absentA/absentB;
// a name given in git's quoted form, between double quotes, gets its a/ or b/ inside the quotes, as
// git writes it: --- "a/tab\tname"; a name that is not quoted must then not start and end with '"'),
// hunks "@@ -l,s +l,s @@" with `context` lines of context, and "\ No newline at end of file" markers
// where a side lacks a final newline. binary is true (and patch "") when either side looks binary
// (contains a NUL byte in its first 8000 bytes, or is not valid UTF-8). Identical inputs give "".
//
// An absent side is treated as empty whatever bytes are passed for it. Equal
// contents give ("", false) even when one side is absent and the other empty,
// or when the (equal) contents are binary. As in diff -u and git, a hunk range
// whose length is 1 is written without the ",1", and an empty range is written
// as the line number preceding it followed by ",0". A negative context is
// treated as 0.
func Unified(name string, a, b []byte, absentA, absentB bool, context int) (patch string, binary bool) {
	if absentA {
		a = nil
	}
	if absentB {
		b = nil
	}
	if bytes.Equal(a, b) {
		return "", false
	}
	if IsBinary(a) || IsBinary(b) {
		return "", true
	}
	context = max(context, 0)
	la, lb := splitLines(string(a)), splitLines(string(b))
	blocks := diffLines(la, lb)
	if len(blocks) == 0 {
		return "", false
	}
	var sb strings.Builder
	sb.Grow(len(a) + len(b) + 64)
	if absentA {
		sb.WriteString("--- /dev/null\n")
	} else {
		sb.WriteString("--- " + prefixed("a/", name) + "\n")
	}
	if absentB {
		sb.WriteString("+++ /dev/null\n")
	} else {
		sb.WriteString("+++ " + prefixed("b/", name) + "\n")
	}
	for i := 0; i < len(blocks); {
		// Merge following blocks while the run of equal lines between them
		// is no longer than the context shown on both sides.
		j := i
		for j+1 < len(blocks) && blocks[j+1].a0-blocks[j].a1 <= 2*context {
			j++
		}
		writeHunk(&sb, la, lb, blocks[i:j+1], context)
		i = j + 1
	}
	return sb.String(), false
}

// prefixed is name behind prefix; a quoted name ("…") keeps the prefix
// inside its quotes.
func prefixed(prefix, name string) string {
	if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
		return `"` + prefix + name[1:]
	}
	return prefix + name
}

// writeHunk writes one hunk: the blocks, the equal lines between them, and
// up to context equal lines before and after.
func writeHunk(sb *strings.Builder, la, lb []string, blocks []block, context int) {
	first, last := blocks[0], blocks[len(blocks)-1]
	aFrom := max(0, first.a0-context)
	bFrom := first.b0 - (first.a0 - aFrom)
	aTo := min(len(la), last.a1+context)
	bTo := last.b1 + (aTo - last.a1)

	sb.WriteString("@@ -")
	writeRange(sb, aFrom, aTo-aFrom)
	sb.WriteString(" +")
	writeRange(sb, bFrom, bTo-bFrom)
	sb.WriteString(" @@\n")

	ai := aFrom
	for _, blk := range blocks {
		for ; ai < blk.a0; ai++ {
			writeLine(sb, ' ', la[ai])
		}
		for _, l := range la[blk.a0:blk.a1] {
			writeLine(sb, '-', l)
		}
		for _, l := range lb[blk.b0:blk.b1] {
			writeLine(sb, '+', l)
		}
		ai = blk.a1
	}
	for ; ai < aTo; ai++ {
		writeLine(sb, ' ', la[ai])
	}
}

// IsBinary reports whether data has a NUL byte in its first 8000 bytes or
// is not valid UTF-8.
func IsBinary(data []byte) bool {
	if bytes.IndexByte(data[:min(len(data), binarySniffLen)], 0) >= 0 {
		return true
	}
	return !utf8.Valid(data)
}

// splitLines splits s into lines, each keeping its trailing "\n"; only the
// last line may lack one. The line identity therefore includes whether it is
// newline-terminated, which is what makes "\ No newline at end of file"
// changes show up as a changed last line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func writeRange(sb *strings.Builder, start, count int) {
	switch count {
	case 0:
		sb.WriteString(strconv.Itoa(start))
		sb.WriteString(",0")
	case 1:
		sb.WriteString(strconv.Itoa(start + 1))
	default:
		sb.WriteString(strconv.Itoa(start + 1))
		sb.WriteByte(',')
		sb.WriteString(strconv.Itoa(count))
	}
}

func writeLine(sb *strings.Builder, prefix byte, line string) {
	sb.WriteByte(prefix)
	sb.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		sb.WriteString("\n\\ No newline at end of file\n")
	}
}

// block is one change: lines a[a0:a1] are replaced by b[b0:b1]. Lines
// between consecutive blocks are equal.
type block struct {
	a0, a1, b0, b1 int
}

// diffLines diffs a and b line by line and returns the change blocks in
// order. The common prefix and suffix are trimmed first (cheap, and most
// edits are small); the middle is diffed by go-udiff, whose edits (byte
// offsets of line boundaries) are turned into line numbers here.
func diffLines(la, lb []string) []block {
	pre := 0
	for pre < len(la) && pre < len(lb) && la[pre] == lb[pre] {
		pre++
	}
	suf := 0
	for suf < len(la)-pre && suf < len(lb)-pre && la[len(la)-1-suf] == lb[len(lb)-1-suf] {
		suf++
	}
	ma, mb := la[pre:len(la)-suf], lb[pre:len(lb)-suf]
	// starts[i] is the byte offset of line i of ma in the joined middle.
	starts := make([]int, len(ma)+1)
	for i, l := range ma {
		starts[i+1] = starts[i] + len(l)
	}
	lineAt := func(off int) int { return sort.SearchInts(starts, off) }
	edits := udiff.Lines(strings.Join(ma, ""), strings.Join(mb, ""))
	blocks := make([]block, 0, len(edits))
	shift := pre // b's line number minus a's index in ma, after the edits so far
	for _, e := range edits {
		a0, a1 := lineAt(e.Start), lineAt(e.End)
		n := strings.Count(e.New, "\n")
		if e.New != "" && !strings.HasSuffix(e.New, "\n") {
			n++
		}
		blk := block{a0: a0 + pre, a1: a1 + pre, b0: a0 + shift, b1: a0 + shift + n}
		shift += n - (a1 - a0)
		if k := len(blocks) - 1; k >= 0 && blocks[k].a1 == blk.a0 && blocks[k].b1 == blk.b0 {
			blocks[k].a1, blocks[k].b1 = blk.a1, blk.b1 // adjacent edits: one block
			continue
		}
		blocks = append(blocks, blk)
	}
	return blocks
}
