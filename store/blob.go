package store

import (
	"encoding/binary"
	"errors"
	"runtime"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// ChunkSize is how much content one blob value holds before compression.
const ChunkSize = 4 << 20

const seed2 = 0x9E3779B97F4A7C15

// The first byte of a chunk says how the rest is encoded.
const (
	codecRaw   = 0
	codecZstd  = 1
	codecDelta = 2 // a delta against another blob (see deltaChunk)
	codecS2    = 3 // S2 (klauspost/compress/s2) block: a first import's (EncodeBlobFast)
	// codecZstdDict: zstd against the store's dictionary, the final
	// encoding (dict.go); Reader.decodeChunk reads it.
	codecZstdDict = 4
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
		// No frame checksum: every content read is checked against its
		// hash (Reader.blob), and 4 bytes a content add up in a store of
		// small files. Frames written with one read as before.
		enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(encoderLevel), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithLowerEncoderMem(true))
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
		chunks = append(chunks, compress(make([]byte, 0, len(part)/2+16), part))
	}
	return chunks
}

// compress appends the codec byte and b, zstd-compressed unless that does
// not make it smaller.
func compress(dst, b []byte) []byte {
	codecs()
	at := len(dst)
	out := enc.EncodeAll(b, append(dst, codecZstd))
	if len(out)-at-1 >= len(b) {
		out = append(append(out[:at], codecRaw), b...)
	}
	return out
}

// decodeChunk appends a chunk's content to dst. A delta chunk is not
// decoded here: it needs its base (Reader.blob).
func decodeChunk(dst, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, errors.New("store: empty blob chunk")
	}
	switch v[0] {
	case codecRaw:
		return append(dst, v[1:]...), nil
	case codecZstd:
		codecs()
		// Decode on its own (straight into dst only when it is empty),
		// so the decoder's memory limit applies to one chunk, not to
		// everything before it.
		into := dst
		if len(dst) > 0 {
			into = nil
		}
		part, err := dec.DecodeAll(v[1:], into)
		if err != nil {
			return nil, err
		}
		if len(dst) == 0 {
			return part, nil
		}
		return append(dst, part...), nil
	case codecS2:
		return decodeS2(dst, v[1:])
	case codecDelta:
		return nil, errors.New("store: a delta chunk where a whole one belongs")
	case codecZstdDict:
		return nil, errors.New("store: a dictionary chunk read without its store")
	}
	return nil, errors.New("store: unknown blob codec")
}

// maxDeltaDepth caps a delta chain: a blob is stored as a delta against a
// base that is itself at most maxDeltaDepth-1 deltas away from a whole
// blob, so a read applies at most maxDeltaDepth deltas.
const maxDeltaDepth = 16

// DeltaBase is a stored content that a new version of the same file may be
// stored as a delta against (EncodeBlobAgainst). The zero DeltaBase is no
// base. Reader.DeltaBase reads one.
type DeltaBase struct {
	hash    Hash
	content []byte
	depth   int  // deltas between it and a whole blob
	root    Hash // the whole blob at the root of its chain, when known
}

// EncodeBlobAgainst is EncodeBlob, except that content that fits one chunk
// is stored as a delta against base when that is less than half the size
// of its plain encoding. It is safe to call from many goroutines.
func EncodeBlobAgainst(b []byte, base DeltaBase) [][]byte {
	if base.content == nil || len(b) > ChunkSize || base.depth >= maxDeltaDepth {
		return EncodeBlob(b)
	}
	// Half of the plain encoding is at most about half of b.
	d := encodeDeltaChunk(b, base, len(b)/2)
	if d != nil && len(d)*sureDelta <= len(b) {
		// Only content that zstd shrinks more than sureDelta/2 times
		// could beat it: not worth compressing b to find out (capture
		// sees mostly small edits, and this saves most of their cost).
		return [][]byte{d}
	}
	plain := EncodeBlob(b)
	if d != nil && 2*len(d) < len(plain[0]) {
		return [][]byte{d}
	}
	return plain
}

// sureDelta: a delta this many times smaller than its content is stored
// without comparing it with the content's plain encoding.
const sureDelta = 16

// A delta chunk is the codec byte codecDelta, the base's hash (H1, H2 and
// size, big-endian), the chain depth (1 for a delta against a whole blob),
// then the delta (delta.go) as compress writes it: a codec byte, raw or
// zstd. A delta blob is always one chunk.
const deltaHeaderLen = 1 + 24 + 1

type deltaChunk struct {
	base  Hash
	depth int
	delta []byte // decompressed
}

// encodeDeltaChunk is b as a delta chunk against base, or nil if that is
// longer than limit bytes.
func encodeDeltaChunk(b []byte, base DeltaBase, limit int) []byte {
	// The op stream is mostly copies and new lines: zstd only pays once
	// there is some new text.
	const compressAbove = 96
	delta := encodeDelta(base.content, b, 2*limit)
	if delta == nil {
		return nil
	}
	out := make([]byte, deltaHeaderLen, deltaHeaderLen+1+len(delta))
	out[0] = codecDelta
	putHash(out[1:], base.hash)
	out[25] = byte(base.depth + 1)
	if len(delta) > compressAbove {
		out = compress(out, delta)
	} else {
		out = append(append(out, codecRaw), delta...)
	}
	if len(out) > limit {
		return nil
	}
	return out
}

// parseDeltaChunk reads a delta chunk's header and decompresses its delta.
func parseDeltaChunk(v []byte) (deltaChunk, error) {
	if len(v) < deltaHeaderLen+1 || v[0] != codecDelta {
		return deltaChunk{}, errCorruptDelta
	}
	d := deltaChunk{base: getHash(v[1:]), depth: int(v[25])}
	if d.base.Size < 0 || d.base.Size > ChunkSize || d.depth < 1 || d.depth > maxDeltaDepth {
		return deltaChunk{}, errCorruptDelta
	}
	var err error
	switch v[deltaHeaderLen] {
	case codecRaw, codecZstd:
		d.delta, err = decodeChunk(nil, v[deltaHeaderLen:])
	default:
		err = errCorruptDelta
	}
	return d, err
}

func putHash(b []byte, h Hash) {
	binary.BigEndian.PutUint64(b, h.H1)
	binary.BigEndian.PutUint64(b[8:], h.H2)
	binary.BigEndian.PutUint64(b[16:], uint64(h.Size))
}

func getHash(b []byte) Hash {
	return Hash{
		H1:   binary.BigEndian.Uint64(b),
		H2:   binary.BigEndian.Uint64(b[8:]),
		Size: int64(binary.BigEndian.Uint64(b[16:])),
	}
}

// encoderLevel trades import speed for store size (BENCHMARKS.md).
var encoderLevel = zstd.SpeedFastest
