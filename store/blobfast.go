package store

import (
	"errors"
	"sync"

	"github.com/klauspost/compress/s2"
)

// EncodeBlobFast is EncodeBlob with S2 instead of zstd: about a tenth of
// zstd's CPU per byte, for a third more stored bytes on source text. A
// first import uses it, where compression was half of the CPU and every
// byte of the tree goes through it at once; captures, which see a few
// files at a time, keep zstd and deltas. Recompress turns its chunks into
// zstd ones later. It is safe to call from many goroutines.
func EncodeBlobFast(b []byte) [][]byte {
	n := (len(b) + ChunkSize - 1) / ChunkSize
	chunks := make([][]byte, 0, max(n, 1))
	for first := true; first || len(b) > 0; first = false {
		part := b[:min(len(b), ChunkSize)]
		b = b[len(part):]
		chunks = append(chunks, compressS2(part))
	}
	return chunks
}

// compressS2 is the codec byte and b as an S2 block, or raw when S2 does
// not make it smaller.
func compressS2(b []byte) []byte {
	a := s2Slabs.Get().(*s2Slab)
	defer s2Slabs.Put(a)
	return a.compress(b)
}

// s2Slab is where compressS2 writes chunks: S2 encodes straight into it,
// and each chunk is the part it wrote, so nothing is copied and one
// allocation serves many chunks (a chunk is kept, in the result pipe and
// Badger's batch, until it is written; a slab lives as long as one of its
// chunks does). A copy of each chunk out of a scratch buffer was a sixth of
// a first import's S2 time. Each goroutine takes its own from s2Slabs.
type s2Slab struct {
	buf []byte
}

// s2SlabSize is a slab's size, unless one chunk needs more.
const s2SlabSize = 1 << 20

var s2Slabs = sync.Pool{New: func() any { return new(s2Slab) }}

func (a *s2Slab) compress(b []byte) []byte {
	need := 1 + s2.MaxEncodedLen(len(b))
	if cap(a.buf)-len(a.buf) < need {
		a.buf = make([]byte, 0, max(need, s2SlabSize))
	}
	at := len(a.buf)
	room := a.buf[at : at+need : at+need]
	room[0] = codecS2
	enc := s2.Encode(room[1:], b)
	n := 1 + len(enc)
	if len(enc) >= len(b) {
		room[0] = codecRaw
		n = 1 + copy(room[1:], b)
	}
	a.buf = a.buf[:at+n]
	return room[:n:n]
}

// decodeS2 appends an S2 block's content to dst. The block's declared
// length is checked first: a chunk never holds more than ChunkSize bytes,
// so a corrupt header cannot make a read allocate more.
func decodeS2(dst, block []byte) ([]byte, error) {
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, err
	}
	if n > ChunkSize {
		return nil, errors.New("store: an S2 chunk declares more than a chunk's size")
	}
	if cap(dst)-len(dst) < n {
		grown := make([]byte, len(dst), len(dst)+n)
		copy(grown, dst)
		dst = grown
	}
	out, err := s2.Decode(dst[len(dst):len(dst)+n], block)
	if err != nil {
		return nil, err
	}
	return dst[:len(dst)+len(out)], nil
}
