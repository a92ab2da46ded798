package store

import (
	"errors"
	"runtime"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// ChunkSize is how much content one blob value holds before compression.
const ChunkSize = 4 << 20

const seed2 = 0x9E3779B97F4A7C15

const (
	codecRaw  = 0
	codecZstd = 1
)

// HashBytes hashes a content.
func HashBytes(b []byte) Hash {
	d := xxhash.NewWithSeed(seed2)
	d.Write(b)
	return Hash{H1: xxhash.Sum64(b), H2: d.Sum64(), Size: int64(len(b))}
}

// Hasher hashes a content streamed through Write.
type Hasher struct {
	d1, d2 *xxhash.Digest
	n      int64
}

// NewHasher returns a Hasher.
func NewHasher() *Hasher { return &Hasher{d1: xxhash.New(), d2: xxhash.NewWithSeed(seed2)} }

func (h *Hasher) Write(b []byte) (int, error) {
	h.d1.Write(b)
	h.d2.Write(b)
	h.n += int64(len(b))
	return len(b), nil
}

// Sum is the hash of what was written.
func (h *Hasher) Sum() Hash { return Hash{H1: h.d1.Sum64(), H2: h.d2.Sum64(), Size: h.n} }

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	dec     *zstd.Decoder
)

func codecs() {
	encOnce.Do(func() {
		enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(encoderLevel), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithLowerEncoderMem(true))
		dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(2*ChunkSize))
	})
}

// EncodeBlob compresses content into the chunks PutBlob stores. It is safe
// to call from many goroutines.
func EncodeBlob(b []byte) [][]byte {
	codecs()
	n := (len(b) + ChunkSize - 1) / ChunkSize
	chunks := make([][]byte, 0, max(n, 1))
	for first := true; first || len(b) > 0; first = false {
		part := b[:min(len(b), ChunkSize)]
		b = b[len(part):]
		out := enc.EncodeAll(part, make([]byte, 1, len(part)/2+16))
		if len(out)-1 >= len(part) {
			out = append(append(out[:0], codecRaw), part...)
		} else {
			out[0] = codecZstd
		}
		chunks = append(chunks, out)
	}
	return chunks
}

func decodeChunk(dst, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, errors.New("store: empty blob chunk")
	}
	switch v[0] {
	case codecRaw:
		return append(dst, v[1:]...), nil
	case codecZstd:
		codecs()
		// Decode on its own, so the decoder's memory limit applies to
		// one chunk, not to everything before it.
		part, err := dec.DecodeAll(v[1:], nil)
		if err != nil {
			return nil, err
		}
		return append(dst, part...), nil
	}
	return nil, errors.New("store: unknown blob codec")
}

// encoderLevel trades import speed for store size (BENCHMARKS.md).
var encoderLevel = zstd.SpeedFastest
