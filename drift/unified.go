package drift

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// udBinarySniffLen is how many leading bytes are searched for a NUL byte
// when deciding whether content is binary (the same window git uses).
const udBinarySniffLen = 8000

// udMaxCost bounds the number of edit steps the Myers middle-snake search
// may take in each direction before giving up. Beyond it, the remaining
// (already prefix/suffix-trimmed) region is reported as one replacement,
// which keeps pathological inputs at O((N+M)·udMaxCost) time.
const udMaxCost = 2048

// udQuickCost bounds the first, interning-free attempt at a diff; inputs
// needing more work are re-diffed on interned lines.
const udQuickCost = 64

// Unified returns a unified diff (like `diff -u` / git diff) from a to b, with the headers
// "--- a/<name>" and "+++ b/<name>" (use "/dev/null" for the side that does not exist: absentA/absentB),
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
	if udIsBinary(a) || udIsBinary(b) {
		return "", true
	}
	if context < 0 {
		context = 0
	}

	la := udSplitLines(string(a))
	lb := udSplitLines(string(b))
	blocks := udDiffLines(la, lb)
	if len(blocks) == 0 {
		return "", false
	}

	var sb strings.Builder
	sb.Grow(len(a) + len(b) + 64)
	if absentA {
		sb.WriteString("--- /dev/null\n")
	} else {
		sb.WriteString("--- a/" + name + "\n")
	}
	if absentB {
		sb.WriteString("+++ /dev/null\n")
	} else {
		sb.WriteString("+++ b/" + name + "\n")
	}

	for i := 0; i < len(blocks); {
		// Merge following blocks while the run of equal lines between them
		// is no longer than the context shown on both sides.
		j := i
		for j+1 < len(blocks) && blocks[j+1].a0-blocks[j].a1 <= 2*context {
			j++
		}
		first, last := blocks[i], blocks[j]
		aFrom := max(0, first.a0-context)
		bFrom := first.b0 - (first.a0 - aFrom)
		aTo := min(len(la), last.a1+context)
		bTo := last.b1 + (aTo - last.a1)

		sb.WriteString("@@ -")
		udWriteRange(&sb, aFrom, aTo-aFrom)
		sb.WriteString(" +")
		udWriteRange(&sb, bFrom, bTo-bFrom)
		sb.WriteString(" @@\n")

		ai := aFrom
		for k := i; k <= j; k++ {
			blk := blocks[k]
			for ; ai < blk.a0; ai++ {
				udWriteLine(&sb, ' ', la[ai])
			}
			for _, l := range la[blk.a0:blk.a1] {
				udWriteLine(&sb, '-', l)
			}
			for _, l := range lb[blk.b0:blk.b1] {
				udWriteLine(&sb, '+', l)
			}
			ai = blk.a1
		}
		for ; ai < aTo; ai++ {
			udWriteLine(&sb, ' ', la[ai])
		}
		i = j + 1
	}
	return sb.String(), false
}

// udIsBinary reports whether data has a NUL byte in its first
// udBinarySniffLen bytes or is not valid UTF-8.
func udIsBinary(data []byte) bool {
	if bytes.IndexByte(data[:min(len(data), udBinarySniffLen)], 0) >= 0 {
		return true
	}
	return !utf8.Valid(data)
}

// udSplitLines splits s into lines, each keeping its trailing "\n"; only the
// last line may lack one. The line identity therefore includes whether it is
// newline-terminated, which is what makes "\ No newline at end of file"
// changes show up as a changed last line.
func udSplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

func udWriteRange(sb *strings.Builder, start, count int) {
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

func udWriteLine(sb *strings.Builder, prefix byte, line string) {
	sb.WriteByte(prefix)
	sb.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		sb.WriteString("\n\\ No newline at end of file\n")
	}
}

// udBlock is one change: lines a[a0:a1] are replaced by b[b0:b1]. Lines
// between consecutive blocks are equal.
type udBlock struct {
	a0, a1, b0, b1 int
}

// udDiffLines computes a line diff of a and b and returns its change blocks
// in order.
func udDiffLines(a, b []string) []udBlock {
	// Trim the common prefix and suffix cheaply on the strings themselves.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	del := make([]bool, len(ma))
	ins := make([]bool, len(mb))

	// Typical edits are small: first try a cheap, tightly bounded search
	// directly on the strings, which avoids interning every line.
	d := &udDiffer[string]{a: ma, b: mb, del: del, ins: ins, maxCost: udQuickCost, strict: true}
	d.run()
	if d.exceeded {
		clear(del)
		clear(ins)
		udDiffInterned(ma, mb, del, ins)
	}

	// Collect change blocks, in original coordinates.
	var blocks []udBlock
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		if (i < len(ma) && del[i]) || (j < len(mb) && ins[j]) {
			si, sj := i, j
			for i < len(ma) && del[i] {
				i++
			}
			for j < len(mb) && ins[j] {
				j++
			}
			blocks = append(blocks, udBlock{si + pre, i + pre, sj + pre, j + pre})
			continue
		}
		i++
		j++
	}
	return blocks
}

// udDiffInterned diffs a and b by interning lines as integers, dropping lines
// that occur on one side only and running a bounded Myers search on the rest.
// It fills del and ins, indexed like a and b.
func udDiffInterned(a, b []string, del, ins []bool) {
	ids := make(map[string]int32, len(a)+len(b))
	ia := make([]int32, len(a))
	ib := make([]int32, len(b))
	var inA, inB []bool
	for i, l := range a {
		id, ok := ids[l]
		if !ok {
			id = int32(len(ids))
			ids[l] = id
			inA = append(inA, false)
		}
		inA[id] = true
		ia[i] = id
	}
	inB = make([]bool, len(inA))
	for i, l := range b {
		id, ok := ids[l]
		if !ok {
			id = int32(len(ids))
			ids[l] = id
			inA = append(inA, false)
			inB = append(inB, false)
		}
		inB[id] = true
		ib[i] = id
	}

	// A line that does not occur at all on the other side can never be
	// matched, so it is certainly deleted (inserted). Dropping such lines
	// before running Myers keeps the result minimal while making dissimilar
	// inputs cheap.
	d := &udDiffer[int32]{del: del, ins: ins, maxCost: udMaxCost}
	for i, id := range ia {
		if inB[id] {
			d.a = append(d.a, id)
			d.ai = append(d.ai, i)
		} else {
			del[i] = true
		}
	}
	for i, id := range ib {
		if inA[id] {
			d.b = append(d.b, id)
			d.bi = append(d.bi, i)
		} else {
			ins[i] = true
		}
	}
	d.run()
}

// udDiffer runs the linear-space Myers algorithm (as in GNU diff's
// compareseq/diag) on two sequences.
type udDiffer[T comparable] struct {
	a, b     []T    // sequences being compared
	ai, bi   []int  // index in the caller's sequences of each a, b element; nil for identity
	del, ins []bool // results, indexed like the caller's sequences
	fd, bd   []int  // forward / backward furthest-reaching x, by diagonal

	maxCost  int  // edit steps allowed per search direction in one split
	strict   bool // on exceeding maxCost, stop instead of marking a replacement
	exceeded bool // maxCost was exceeded
}

func (d *udDiffer[T]) run() {
	if len(d.a) == 0 || len(d.b) == 0 {
		d.markA(0, len(d.a))
		d.markB(0, len(d.b))
		return
	}
	n := len(d.a) + len(d.b) + 3
	d.fd = make([]int, n)
	d.bd = make([]int, n)
	d.compare(0, len(d.a), 0, len(d.b))
}

func (d *udDiffer[T]) markA(lo, hi int) {
	if d.ai == nil {
		for i := lo; i < hi; i++ {
			d.del[i] = true
		}
		return
	}
	for _, i := range d.ai[lo:hi] {
		d.del[i] = true
	}
}

func (d *udDiffer[T]) markB(lo, hi int) {
	if d.bi == nil {
		for i := lo; i < hi; i++ {
			d.ins[i] = true
		}
		return
	}
	for _, i := range d.bi[lo:hi] {
		d.ins[i] = true
	}
}

// compare diffs a[xoff:xlim] against b[yoff:ylim], marking deleted and
// inserted elements.
func (d *udDiffer[T]) compare(xoff, xlim, yoff, ylim int) {
	for {
		if d.exceeded && d.strict {
			return
		}
		for xoff < xlim && yoff < ylim && d.a[xoff] == d.b[yoff] {
			xoff++
			yoff++
		}
		for xoff < xlim && yoff < ylim && d.a[xlim-1] == d.b[ylim-1] {
			xlim--
			ylim--
		}
		switch {
		case xoff == xlim:
			d.markB(yoff, ylim)
			return
		case yoff == ylim:
			d.markA(xoff, xlim)
			return
		}
		xmid, ymid, ok := d.split(xoff, xlim, yoff, ylim)
		if !ok {
			d.exceeded = true
			if d.strict {
				return
			}
			// Too expensive: report the whole region as replaced.
			d.markA(xoff, xlim)
			d.markB(yoff, ylim)
			return
		}
		// Recurse on the smaller half, iterate on the other.
		if (xmid-xoff)+(ymid-yoff) < (xlim-xmid)+(ylim-ymid) {
			d.compare(xoff, xmid, yoff, ymid)
			xoff, yoff = xmid, ymid
		} else {
			d.compare(xmid, xlim, ymid, ylim)
			xlim, ylim = xmid, ymid
		}
	}
}

// split finds the midpoint of a shortest edit script from a[xoff:xlim] to
// b[yoff:ylim], searching forward from the top-left and backward from the
// bottom-right corner simultaneously until the two searches overlap. The
// regions must be non-empty and must not share a first or last element.
// Diagonal k holds the points with x-y == k; fd[k] is the furthest x reached
// forward and bd[k] the smallest x reached backward. It reports false when
// more than d.maxCost steps would be needed.
func (d *udDiffer[T]) split(xoff, xlim, yoff, ylim int) (xmid, ymid int, ok bool) {
	a, b := d.a, d.b
	off := len(b) + 1 // so diagonals down to -len(b)-1 index fd, bd
	fd, bd := d.fd, d.bd
	dmin, dmax := xoff-ylim, xlim-yoff // valid diagonals
	fmid, bmid := xoff-yoff, xlim-ylim // starting diagonals
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid
	odd := (fmid-bmid)&1 != 0

	fd[off+fmid] = xoff
	bd[off+bmid] = xlim

	for c := 1; c <= d.maxCost; c++ {
		// Extend the forward search by one edit step on each diagonal.
		if fmin > dmin {
			fmin--
			fd[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			tlo, thi := fd[off+k-1], fd[off+k+1]
			x := tlo + 1
			if tlo < thi {
				x = thi
			}
			y := x - k
			for x < xlim && y < ylim && a[x] == b[y] {
				x++
				y++
			}
			fd[off+k] = x
			if odd && bmin <= k && k <= bmax && bd[off+k] <= x {
				return x, y, true
			}
		}

		// Extend the backward search likewise.
		if bmin > dmin {
			bmin--
			bd[off+bmin-1] = int(^uint(0) >> 1)
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[off+bmax+1] = int(^uint(0) >> 1)
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			tlo, thi := bd[off+k-1], bd[off+k+1]
			x := thi - 1
			if tlo < thi {
				x = tlo
			}
			y := x - k
			for xoff < x && yoff < y && a[x-1] == b[y-1] {
				x--
				y--
			}
			bd[off+k] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[off+k] {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

// Colorize adds ANSI colors to a unified diff for terminals: headers bold, hunk lines cyan, '-' red, '+' green.
//
// Lines are classified by following the hunk headers' line counts, so a
// removed line reading "-- x" is colored as a removal rather than taken for a
// "--- " file header. Context lines and "\ No newline at end of file" markers
// are left uncolored.
func Colorize(patch string) string {
	const (
		bold  = "\x1b[1m"
		cyan  = "\x1b[36m"
		red   = "\x1b[31m"
		green = "\x1b[32m"
		reset = "\x1b[0m"
	)
	if patch == "" {
		return ""
	}
	var sb strings.Builder
	sb.Grow(len(patch) + len(patch)/4)
	// oldLeft/newLeft count the lines still expected in the current hunk;
	// lenient is set when a hunk header could not be parsed, in which case
	// lines are classified by their first byte until the next header.
	oldLeft, newLeft := 0, 0
	lenient := false
	for rest := patch; rest != ""; {
		line, nl := rest, ""
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, nl = rest[:i], "\n"
			rest = rest[i+1:]
		} else {
			rest = ""
		}
		color := ""
		inHunk := oldLeft > 0 || newLeft > 0 || lenient
		switch {
		case inHunk && line != "" && line[0] == '-' && !(lenient && strings.HasPrefix(line, "--- ")):
			color = red
			oldLeft--
		case inHunk && line != "" && line[0] == '+' && !(lenient && strings.HasPrefix(line, "+++ ")):
			color = green
			newLeft--
		case inHunk && (line == "" || line[0] == ' '):
			oldLeft--
			newLeft--
		case strings.HasPrefix(line, "\\"):
			// "\ No newline at end of file": leave plain.
		case strings.HasPrefix(line, "@@"):
			color = cyan
			var ok bool
			oldLeft, newLeft, ok = udParseHunkHeader(line)
			lenient = !ok
		default:
			color = bold
			lenient = false
			oldLeft, newLeft = 0, 0
		}
		if color != "" && line != "" {
			sb.WriteString(color)
			sb.WriteString(line)
			sb.WriteString(reset)
		} else {
			sb.WriteString(line)
		}
		sb.WriteString(nl)
	}
	return sb.String()
}

// udParseHunkHeader parses "@@ -l[,s] +l[,s] @@..." and returns the two
// line counts.
func udParseHunkHeader(line string) (oldN, newN int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	count := func(r string) (int, bool) {
		_, n, found := strings.Cut(r[1:], ",")
		if !found {
			return 1, true
		}
		v, err := strconv.Atoi(n)
		return v, err == nil && v >= 0
	}
	oldN, ok1 := count(f[1])
	newN, ok2 := count(f[2])
	return oldN, newN, ok1 && ok2
}
