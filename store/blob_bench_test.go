package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkEncodeBlob compares storing a one-line edit of a 16 KiB source
// file whole and as a delta against the version before (what capture does
// for a modified file, besides reading the base).
func BenchmarkEncodeBlob(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	prev := confSourceText(rng, 250)
	next := append(bytes.Clone(prev), "// one more line\n"...)
	base := DeltaBase{hash: HashBytes(prev), content: prev}
	for _, c := range []struct {
		name string
		fn   func() [][]byte
	}{
		{"whole", func() [][]byte { return EncodeBlob(next) }},
		{"against-previous", func() [][]byte { return EncodeBlobAgainst(next, base) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(next)))
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n = len(c.fn()[0])
			}
			b.ReportMetric(float64(n), "stored-bytes")
		})
	}
}

// BenchmarkBlobReadChain reads a 16 KiB content stored at the end of delta
// chains of different depths.
func BenchmarkBlobReadChain(b *testing.B) {
	s := openTestStore(b)
	rng := rand.New(rand.NewPCG(2, 2))
	content := confSourceText(rng, 250)
	var prev Hash
	at := map[int]Hash{}
	for i := 0; i <= maxDeltaDepth; i++ {
		content = append(bytes.Clone(content), fmt.Sprintf("// edit %d\n", i)...)
		prev = confPutVersion(b, s, content, prev)
		at[confDepth(b, s, prev)] = prev
	}
	for _, depth := range []int{0, maxDeltaDepth / 2, maxDeltaDepth} {
		h, ok := at[depth]
		if !ok {
			b.Fatalf("no version stored at depth %d", depth)
		}
		b.Run(fmt.Sprintf("depth-%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				confReadBlob(b, s, h)
			}
		})
	}
}
