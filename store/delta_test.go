package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// deltaText is source-like text: lines that repeat in shape, not in bytes.
func deltaText(rng *rand.Rand, lines int) []byte {
	var b bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&b, "\tx%d := compute(%d, %q) // line %d\n", rng.IntN(1000), rng.IntN(1<<20), "arg", i)
	}
	return b.Bytes()
}

func TestDeltaRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	base := deltaText(rng, 400)
	mid := len(base) / 2
	cases := []struct {
		name   string
		target []byte
		// small: the delta must be far smaller than the target.
		small bool
	}{
		{"same", bytes.Clone(base), true},
		{"appended line", append(bytes.Clone(base), "// one more line\n"...), true},
		{"line inserted in the middle", slicesConcat(base[:mid], []byte("\tinserted()\n"), base[mid:]), true},
		{"edits at both ends and the middle", slicesConcat([]byte("// header\n"), base[40:mid], []byte("changed"), base[mid+7:len(base)-30], []byte("tail\n")), true},
		{"truncated", base[:len(base)/3], true},
		{"empty", []byte{}, true},
		{"shorter than a block", []byte("tiny"), true},
		{"unrelated", confRandBytes(rng, len(base)), false},
		{"blocks reordered", slicesConcat(base[mid:], base[:mid]), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := encodeDelta(base, c.target, len(c.target)+64)
			if d == nil {
				t.Fatal("no delta within a limit the literal encoding meets")
			}
			if c.small && len(d) > len(c.target)/10+64 {
				t.Errorf("delta of %d bytes for a %d-byte target", len(d), len(c.target))
			}
			got, err := applyDelta(nil, base, d, ChunkSize)
			if err != nil || !bytes.Equal(got, c.target) {
				t.Fatalf("applyDelta = %d bytes, %v; want the %d-byte target", len(got), err, len(c.target))
			}
		})
	}
	t.Run("limit", func(t *testing.T) {
		if d := encodeDelta(base, confRandBytes(rng, 4000), 1000); d != nil {
			t.Errorf("a %d-byte delta despite a limit of 1000", len(d))
		}
	})
	t.Run("empty base", func(t *testing.T) {
		target := deltaText(rng, 10)
		d := encodeDelta(nil, target, 2*len(target))
		if got, err := applyDelta(nil, nil, d, ChunkSize); err != nil || !bytes.Equal(got, target) {
			t.Fatalf("applyDelta = %v", err)
		}
	})
}

func slicesConcat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestApplyDeltaRejects: corrupt deltas error.
func TestApplyDeltaRejects(t *testing.T) {
	base := []byte("0123456789abcdef0123456789abcdef")
	for _, c := range []struct {
		name  string
		delta []byte
	}{
		{"empty", nil},
		{"size over the limit", []byte{0xff, 0xff, 0xff, 0x7f}},
		{"unterminated varint", []byte{4, 0x80}},
		{"zero-length op", []byte{4, 0}},
		{"literal past the end", []byte{4, 8, 'a'}},
		{"copy past the base", []byte{4, 9, 30}},
		{"copy offset past the base", []byte{4, 9, 200, 1}},
		{"more than declared", []byte{1, 4, 'a', 'b'}},
		{"less than declared", []byte{4, 2, 'a'}},
		{"copy with no offset", []byte{4, 9}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, err := applyDelta(nil, base, c.delta, 1<<20); err == nil {
				t.Errorf("applyDelta(% x) = %q, want an error", c.delta, got)
			}
		})
	}
}

// FuzzDeltaRoundTrip: any target encodes against any base, and decodes
// back to itself.
func FuzzDeltaRoundTrip(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog, again and again"), []byte("the quick brown fox jumps over the lazy cat, again and again"))
	f.Add([]byte{}, []byte("x"))
	f.Add(bytes.Repeat([]byte("a"), 100), bytes.Repeat([]byte("a"), 90))
	f.Fuzz(func(t *testing.T, base, target []byte) {
		d := encodeDelta(base, target, 2*len(target)+16)
		if d == nil {
			t.Fatal("no delta within twice the target's length")
		}
		got, err := applyDelta(nil, base, d, len(target))
		if err != nil || !bytes.Equal(got, target) {
			t.Fatalf("round trip: %q, %v; want %q", got, err, target)
		}
	})
}

// FuzzDeltaChunk: delta chunks are read from disk. Parsing and applying a
// corrupt one must error, never panic, loop or build more than the length
// it was allowed.
func FuzzDeltaChunk(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	base := deltaText(rng, 50)
	target := append(bytes.Clone(base), "more\n"...)
	long := slicesConcat(deltaText(rng, 30), base)
	for _, t := range [][]byte{target, long} {
		if d := encodeDeltaChunk(t, DeltaBase{hash: HashBytes(base), content: base}, len(t)); d != nil {
			f.Add(base, d)
		}
	}
	f.Add(base, []byte{codecDelta})
	f.Add(base, append(make([]byte, deltaHeaderLen), codecZstd, 0x28, 0xb5, 0x2f, 0xfd))
	f.Fuzz(func(t *testing.T, base, chunk []byte) {
		d, err := parseDeltaChunk(chunk)
		if err != nil {
			return
		}
		if d.base.Size < 0 || d.base.Size > ChunkSize || d.depth < 1 || d.depth > maxDeltaDepth {
			t.Fatalf("parsed a header out of range: %+v", d)
		}
		const limit = 1 << 16
		out, err := applyDelta(nil, base, d.delta, limit)
		if err == nil && len(out) > limit {
			t.Fatalf("built %d bytes, allowed %d", len(out), limit)
		}
	})
}
