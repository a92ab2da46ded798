package textdiff

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name             string
		a, b             string
		absentA, absentB bool
		context          int
		want             string
		binary           bool
	}{
		{
			name:    "empty to content",
			b:       "one\ntwo\n",
			absentA: true,
			context: 3,
			want: "--- /dev/null\n+++ b/f.txt\n" +
				"@@ -0,0 +1,2 @@\n+one\n+two\n",
		},
		{
			name:    "present empty to content",
			b:       "one\n",
			context: 3,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -0,0 +1 @@\n+one\n",
		},
		{
			name:    "content to empty",
			a:       "one\ntwo\nthree\n",
			absentB: true,
			context: 3,
			want: "--- a/f.txt\n+++ /dev/null\n" +
				"@@ -1,3 +0,0 @@\n-one\n-two\n-three\n",
		},
		{
			name:    "absent side ignores its bytes",
			a:       "stale\n",
			b:       "x\n",
			absentA: true,
			context: 3,
			want:    "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+x\n",
		},
		{
			name:    "single line change",
			a:       "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			b:       "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
			context: 3,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n",
		},
		{
			name:    "single line file",
			a:       "old\n",
			b:       "new\n",
			context: 3,
			want:    "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-old\n+new\n",
		},
		{
			name:    "pure insertion without context",
			a:       "1\n2\n3\n",
			b:       "1\n2\nnew\n3\n",
			context: 0,
			want:    "--- a/f.txt\n+++ b/f.txt\n@@ -2,0 +3 @@\n+new\n",
		},
		{
			name:    "pure deletion without context",
			a:       "1\n2\n3\n",
			b:       "1\n3\n",
			context: 0,
			want:    "--- a/f.txt\n+++ b/f.txt\n@@ -2 +1,0 @@\n-2\n",
		},
		{
			name:    "hunks merged by context",
			a:       "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
			b:       "1\nB\n3\n4\n5\n6\n7\nH\n9\n10\n",
			context: 3, // gap of 5 equal lines <= 2*3
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,10 +1,10 @@\n 1\n-2\n+B\n 3\n 4\n 5\n 6\n 7\n-8\n+H\n 9\n 10\n",
		},
		{
			name:    "hunks merged at exactly twice the context",
			a:       "1\n2\n3\n4\n5\n6\n",
			b:       "x\n2\n3\n4\n5\ny\n",
			context: 2,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,6 +1,6 @@\n-1\n+x\n 2\n 3\n 4\n 5\n-6\n+y\n",
		},
		{
			name:    "hunks split by context",
			a:       "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
			b:       "1\nB\n3\n4\n5\n6\n7\nH\n9\n10\n",
			context: 1, // gap of 5 equal lines > 2*1
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,3 +1,3 @@\n 1\n-2\n+B\n 3\n" +
				"@@ -7,3 +7,3 @@\n 7\n-8\n+H\n 9\n",
		},
		{
			name:    "several hunks",
			a:       "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n",
			b:       "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\nl\nn\nN2\n",
			context: 2,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,5 +1,5 @@\n a\n b\n-c\n+C\n d\n e\n" +
				"@@ -11,4 +11,4 @@\n k\n l\n-m\n n\n+N2\n",
		},
		{
			name:    "missing final newline on old side",
			a:       "1\n2\n3",
			b:       "1\n2\n3\n",
			context: 3,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,3 +1,3 @@\n 1\n 2\n-3\n\\ No newline at end of file\n+3\n",
		},
		{
			name:    "missing final newline on new side",
			a:       "1\n2\n3\n",
			b:       "1\n2\n3",
			context: 3,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,3 +1,3 @@\n 1\n 2\n-3\n+3\n\\ No newline at end of file\n",
		},
		{
			name:    "missing final newline on both sides",
			a:       "1\n2\n3",
			b:       "1\nTWO\n3",
			context: 3,
			want: "--- a/f.txt\n+++ b/f.txt\n" +
				"@@ -1,3 +1,3 @@\n 1\n-2\n+TWO\n 3\n\\ No newline at end of file\n",
		},
		{
			name:    "new file without final newline",
			b:       "x",
			absentA: true,
			context: 3,
			want:    "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
		},
		{
			name:    "binary NUL on new side",
			a:       "text\n",
			b:       "te\x00xt\n",
			context: 3,
			binary:  true,
		},
		{
			name:    "binary NUL on old side",
			a:       "\x00\x01\x02",
			absentB: true,
			context: 3,
			binary:  true,
		},
		{
			name:    "binary invalid UTF-8",
			a:       "caf\xe9\n",
			b:       "cafe\n",
			context: 3,
			binary:  true,
		},
		{
			name:    "NUL after sniff window is text",
			a:       strings.Repeat("x", 8000) + "\x00\n",
			b:       strings.Repeat("x", 8000) + "\x00\ny\n",
			context: 0,
			want:    "--- a/f.txt\n+++ b/f.txt\n@@ -1,0 +2 @@\n+y\n",
		},
		{
			name:    "identical",
			a:       "same\n",
			b:       "same\n",
			context: 3,
		},
		{
			name:    "identical binary",
			a:       "\x00\xff",
			b:       "\x00\xff",
			context: 3,
		},
		{
			name:    "both empty",
			absentA: true,
			context: 3,
		},
		{
			name:    "negative context is zero",
			a:       "1\n2\n3\n",
			b:       "1\nx\n3\n",
			context: -1,
			want:    "--- a/f.txt\n+++ b/f.txt\n@@ -2 +2 @@\n-2\n+x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, bin := Unified("f.txt", []byte(tt.a), []byte(tt.b), tt.absentA, tt.absentB, tt.context)
			if bin != tt.binary {
				t.Fatalf("binary = %v, want %v", bin, tt.binary)
			}
			if got != tt.want {
				t.Fatalf("patch mismatch\ngot:\n%s\nwant:\n%s", got, tt.want)
			}
			if tt.binary {
				return
			}
			a, b := tt.a, tt.b
			if tt.absentA {
				a = ""
			}
			if tt.absentB {
				b = ""
			}
			res, err := applyUnified(a, got, max(tt.context, 0))
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if res != b {
				t.Fatalf("apply gave %q, want %q", res, b)
			}
		})
	}
}

func TestUnifiedRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 3000; iter++ {
		a := randomText(rng, rng.Intn(40))
		b := mutateText(rng, a)
		ctx := rng.Intn(5)
		absentA := a == "" && rng.Intn(2) == 0
		absentB := b == "" && rng.Intn(2) == 0
		t.Run(fmt.Sprintf("case%d", iter), func(t *testing.T) {
			checkRoundTrip(t, a, b, absentA, absentB, ctx)
			checkMinimal(t, a, b)
		})
	}
}

func TestUnifiedLarge(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&sb, "line %d of a fairly ordinary source file\n", i)
	}
	a := sb.String()
	lines := strings.SplitAfter(a, "\n")
	lines[100] = "changed\n"
	lines[5000] = "also changed\n" + lines[5000]
	lines = append(lines[:9000], lines[9002:]...)
	b := strings.Join(lines, "")

	tests := []struct {
		name string
		a, b string
	}{
		{"few changes", a, b},
		{"all different", a, strings.ToUpper(a)},
		{"reversed", a, reverseLines(a)},
		{"small alphabet shuffle", randomLines(rand.New(rand.NewSource(2)), 10000, 3), randomLines(rand.New(rand.NewSource(3)), 10000, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, bin := Unified("big", []byte(tt.a), []byte(tt.b), false, false, 3)
			if bin {
				t.Fatal("unexpected binary")
			}
			res, err := applyUnified(tt.a, patch, 3)
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if res != tt.b {
				t.Fatal("round trip failed")
			}
		})
	}
}

func TestColorize(t *testing.T) {
	const (
		bold  = "\x1b[1m"
		cyan  = "\x1b[36m"
		red   = "\x1b[31m"
		green = "\x1b[32m"
		reset = "\x1b[0m"
	)
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{
			name: "basic",
			in:   "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n",
			want: bold + "--- a/f" + reset + "\n" + bold + "+++ b/f" + reset + "\n" +
				cyan + "@@ -1,2 +1,2 @@" + reset + "\n ctx\n" +
				red + "-old" + reset + "\n" + green + "+new" + reset + "\n",
		},
		{
			name: "removed line looking like a header",
			in:   "--- a/f\n+++ b/f\n@@ -1 +1 @@\n--- x\n+++ y\n\\ No newline at end of file\n",
			want: bold + "--- a/f" + reset + "\n" + bold + "+++ b/f" + reset + "\n" +
				cyan + "@@ -1 +1 @@" + reset + "\n" +
				red + "--- x" + reset + "\n" + green + "+++ y" + reset + "\n" +
				"\\ No newline at end of file\n",
		},
		{
			name: "two files",
			in:   "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n--- a/g\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n",
			want: bold + "--- a/f" + reset + "\n" + bold + "+++ b/f" + reset + "\n" +
				cyan + "@@ -1 +1 @@" + reset + "\n" + red + "-a" + reset + "\n" + green + "+b" + reset + "\n" +
				bold + "--- a/g" + reset + "\n" + bold + "+++ /dev/null" + reset + "\n" +
				cyan + "@@ -1 +0,0 @@" + reset + "\n" + red + "-g" + reset + "\n",
		},
		{
			name: "no trailing newline",
			in:   "@@ -1 +1 @@\n-a\n+b",
			want: cyan + "@@ -1 +1 @@" + reset + "\n" + red + "-a" + reset + "\n" + green + "+b" + reset,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Colorize(tt.in); got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func FuzzUnified(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), uint8(3), uint8(0))
	f.Add([]byte(""), []byte("x"), uint8(0), uint8(1))
	f.Add([]byte("x\ny"), []byte(""), uint8(1), uint8(2))
	f.Add([]byte("1\n2\n3\n4\n5\n6\n7\n8\n"), []byte("0\n2\n3\n4\n5\n6\n7\n9"), uint8(2), uint8(0))
	f.Add([]byte("\x00"), []byte("a"), uint8(3), uint8(0))
	f.Fuzz(func(t *testing.T, a, b []byte, ctx, flags uint8) {
		checkRoundTrip(t, string(a), string(b), flags&1 != 0, flags&2 != 0, int(ctx%8))
		// Random bytes are mostly binary; also try them mapped to short
		// text lines so the line diff itself gets exercised.
		checkRoundTrip(t, textify(a), textify(b), flags&1 != 0, flags&2 != 0, int(ctx%8))
	})
}

// textify maps arbitrary bytes to text made of few distinct short lines.
func textify(p []byte) string {
	out := make([]byte, len(p))
	for i, c := range p {
		if c%3 == 0 {
			out[i] = '\n'
		} else {
			out[i] = 'a' + c%4
		}
	}
	return string(out)
}

func BenchmarkUnified10kFewChanges(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&sb, "\tx := compute(%d) // some code\n", i)
	}
	a := sb.String()
	lines := strings.SplitAfter(a, "\n")
	lines[10] = "edited\n"
	lines[4000] = ""
	lines[9990] += "inserted\n"
	bb := []byte(strings.Join(lines, ""))
	ab := []byte(a)
	b.ReportAllocs()
	for b.Loop() {
		Unified("f", ab, bb, false, false, 3)
	}
}

// checkRoundTrip asserts the documented properties of Unified for one input.
func checkRoundTrip(t *testing.T, a, b string, absentA, absentB bool, ctx int) {
	t.Helper()
	patch, bin := Unified("p", []byte(a), []byte(b), absentA, absentB, ctx)
	if absentA {
		a = ""
	}
	if absentB {
		b = ""
	}
	if a == b {
		if patch != "" || bin {
			t.Fatalf("identical inputs gave %q, %v", patch, bin)
		}
		return
	}
	if bin {
		if patch != "" {
			t.Fatalf("binary with patch %q", patch)
		}
		if !IsBinary([]byte(a)) && !IsBinary([]byte(b)) {
			t.Fatalf("binary reported for text %q, %q", a, b)
		}
		return
	}
	if IsBinary([]byte(a)) || IsBinary([]byte(b)) {
		t.Fatalf("binary input not reported: %q, %q", a, b)
	}
	wantA, wantB := "--- a/p\n", "+++ b/p\n"
	if absentA {
		wantA = "--- /dev/null\n"
	}
	if absentB {
		wantB = "+++ /dev/null\n"
	}
	if !strings.HasPrefix(patch, wantA+wantB) {
		t.Fatalf("bad headers in %q", patch)
	}
	got, err := applyUnified(a, patch, ctx)
	if err != nil {
		t.Fatalf("apply: %v\na=%q\nb=%q\npatch:\n%s", err, a, b, patch)
	}
	if got != b {
		t.Fatalf("round trip mismatch\na=%q\nb=%q\ngot=%q\npatch:\n%s", a, b, got, patch)
	}
}

// checkMinimal asserts the diff has the minimal number of changed lines,
// comparing against a dynamic-programming LCS.
func checkMinimal(t *testing.T, a, b string) {
	t.Helper()
	la, lb := splitLines(a), splitLines(b)
	changed := 0
	for _, blk := range diffLines(la, lb) {
		changed += blk.a1 - blk.a0 + blk.b1 - blk.b0
	}
	want := len(la) + len(lb) - 2*lcsLen(la, lb)
	if changed != want {
		t.Fatalf("diff changes %d lines, minimal is %d\na=%q\nb=%q", changed, want, a, b)
	}
}

func lcsLen[T comparable](a, b []T) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

type patchLine struct {
	op   byte
	text string // including "\n" unless followed by a no-newline marker
}

// applyUnified applies a single-file unified diff to a, strictly: every
// context and removed line must match, counts must agree with the hunk
// headers, and hunks must be ordered and shaped as Unified promises for the
// given context (leading/trailing context of exactly ctx lines unless at a
// file edge, no run of more than 2*ctx context lines inside a hunk, and hunks
// neither overlapping nor touching).
func applyUnified(a, patch string, ctx int) (string, error) {
	if patch == "" {
		return a, nil
	}
	if !strings.HasSuffix(patch, "\n") {
		return "", fmt.Errorf("patch does not end in newline")
	}
	pl := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	if len(pl) < 3 || !strings.HasPrefix(pl[0], "--- ") || !strings.HasPrefix(pl[1], "+++ ") {
		return "", fmt.Errorf("missing headers")
	}
	src := splitLines(a)
	var out strings.Builder
	pos := 0  // next unconsumed line of src (0-based)
	outN := 0 // lines written to out
	i := 2
	hunks := 0
	for i < len(pl) {
		oldStart, oldN, newStart, newN, err := parseRanges(pl[i])
		if err != nil {
			return "", err
		}
		i++
		var body []patchLine
		for o, n := oldN, newN; o > 0 || n > 0; i++ {
			if i >= len(pl) || pl[i] == "" {
				return "", fmt.Errorf("hunk truncated")
			}
			op, text := pl[i][0], pl[i][1:]+"\n"
			switch op {
			case ' ':
				o--
				n--
			case '-':
				o--
			case '+':
				n--
			default:
				return "", fmt.Errorf("bad hunk line %q", pl[i])
			}
			if o < 0 || n < 0 {
				return "", fmt.Errorf("hunk longer than header says")
			}
			body = append(body, patchLine{op, text})
			if i+1 < len(pl) && pl[i+1] == `\ No newline at end of file` {
				body[len(body)-1].text = strings.TrimSuffix(text, "\n")
				i++
			}
		}
		// Shape checks.
		changes := 0
		lead, trail, run := 0, 0, 0
		for k, l := range body {
			if l.op == ' ' {
				run++
				if run > 2*ctx {
					return "", fmt.Errorf("context run longer than %d", 2*ctx)
				}
				continue
			}
			if changes == 0 {
				lead = k
			}
			changes++
			run = 0
		}
		trail = run
		if changes == 0 {
			return "", fmt.Errorf("hunk without changes")
		}
		// Position: an empty old range names the line before it.
		start := oldStart - 1
		if oldN == 0 {
			start = oldStart
		}
		if hunks > 0 && start <= pos {
			return "", fmt.Errorf("hunk at %d overlaps or touches previous ending at %d", start, pos)
		}
		if start < pos || start > len(src) {
			return "", fmt.Errorf("hunk start %d out of order", oldStart)
		}
		if lead != ctx && start != 0 {
			return "", fmt.Errorf("leading context %d, want %d", lead, ctx)
		}
		if trail != ctx && start+oldN != len(src) {
			return "", fmt.Errorf("trailing context %d, want %d", trail, ctx)
		}
		for ; pos < start; pos++ {
			out.WriteString(src[pos])
			outN++
		}
		wantNew := newStart - 1
		if newN == 0 {
			wantNew = newStart
		}
		if wantNew != outN {
			return "", fmt.Errorf("new start %d, but output is at line %d", newStart, outN+1)
		}
		for _, l := range body {
			switch l.op {
			case ' ', '-':
				if pos >= len(src) || src[pos] != l.text {
					return "", fmt.Errorf("line %d does not match %q", pos+1, l.text)
				}
				pos++
				if l.op == ' ' {
					out.WriteString(l.text)
					outN++
				}
			case '+':
				out.WriteString(l.text)
				outN++
			}
		}
		hunks++
	}
	if hunks == 0 {
		return "", fmt.Errorf("no hunks")
	}
	for ; pos < len(src); pos++ {
		out.WriteString(src[pos])
	}
	return out.String(), nil
}

func parseRanges(h string) (oldStart, oldN, newStart, newN int, err error) {
	f := strings.Fields(h)
	if len(f) != 4 || f[0] != "@@" || f[3] != "@@" || f[1][0] != '-' || f[2][0] != '+' {
		return 0, 0, 0, 0, fmt.Errorf("bad hunk header %q", h)
	}
	rng := func(s string) (int, int, error) {
		st, n, found := strings.Cut(s[1:], ",")
		start, err := strconv.Atoi(st)
		if err != nil {
			return 0, 0, err
		}
		if !found {
			return start, 1, nil
		}
		if n == "1" {
			return 0, 0, fmt.Errorf("explicit ,1 in %q", h)
		}
		cnt, err := strconv.Atoi(n)
		return start, cnt, err
	}
	if oldStart, oldN, err = rng(f[1]); err != nil {
		return
	}
	newStart, newN, err = rng(f[2])
	return
}

func randomText(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString(randomLine(rng))
		sb.WriteByte('\n')
	}
	s := sb.String()
	if s != "" && rng.Intn(4) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

func randomLine(rng *rand.Rand) string {
	words := []string{"", "a", "b", "c", "foo", "bar", " x", "-y", "+z", "\\w", "@@"}
	return words[rng.Intn(len(words))]
}

func mutateText(rng *rand.Rand, a string) string {
	lines := strings.SplitAfter(a, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for n := rng.Intn(6); n > 0; n-- {
		switch k := rng.Intn(len(lines) + 1); rng.Intn(3) {
		case 0: // insert
			lines = append(lines[:k], append([]string{randomLine(rng) + "\n"}, lines[k:]...)...)
		case 1: // delete
			if k < len(lines) {
				lines = append(lines[:k], lines[k+1:]...)
			}
		case 2: // replace
			if k < len(lines) {
				lines[k] = randomLine(rng) + "\n"
			}
		}
	}
	b := strings.Join(lines, "")
	switch rng.Intn(6) {
	case 0:
		b = strings.TrimSuffix(b, "\n")
	case 1:
		if b != "" && !strings.HasSuffix(b, "\n") {
			b += "\n"
		}
	}
	return b
}

func randomLines(rng *rand.Rand, n, alphabet int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "%d\n", rng.Intn(alphabet))
	}
	return sb.String()
}

func reverseLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var buf bytes.Buffer
	for i := len(lines) - 1; i >= 0; i-- {
		buf.WriteString(lines[i])
	}
	return buf.String()
}

// BenchmarkUnifiedFewChanges: a 10k-line file with three edits (speed is
// measured here, never asserted in a test).
func BenchmarkUnifiedFewChanges(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&sb, "line %d of a fairly ordinary source file\n", i)
	}
	a := sb.String()
	lines := strings.SplitAfter(a, "\n")
	lines[100] = "changed\n"
	lines[5000] = "also changed\n" + lines[5000]
	c := strings.Join(append(lines[:9000], lines[9002:]...), "")
	for b.Loop() {
		Unified("big", []byte(a), []byte(c), false, false, 3)
	}
}

// TestUnifiedQuotedName: a name in git's quoted form gets its a/ and b/
// inside the quotes, as git writes it.
func TestUnifiedQuotedName(t *testing.T) {
	got, _ := Unified(`"tab\tname"`, []byte("one\n"), []byte("two\n"), false, false, 3)
	want := "--- \"a/tab\\tname\"\n+++ \"b/tab\\tname\"\n@@ -1 +1 @@\n-one\n+two\n"
	if got != want {
		t.Errorf("Unified of a quoted name:\n got %q\nwant %q", got, want)
	}
	got, _ = Unified("plain", []byte("one\n"), nil, false, true, 3)
	if want := "--- a/plain\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n"; got != want {
		t.Errorf("Unified of a plain name:\n got %q\nwant %q", got, want)
	}
}
