package store

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// This file holds the delta format: how a content is written as copies
// from a base content plus the bytes that are new. It is git's idea
// (diff-delta.c): index the base by the hash of each aligned deltaBlock
// bytes, slide over the target looking every position up, and grow each
// hit backwards and forwards into the longest common run. Any run the two
// share that is at least 2*deltaBlock-1 bytes long holds a whole aligned
// block of the base, so is found; shorter ones are sent as new bytes.
//
// A delta is
//
//	uvarint(target length)
//	op*: uvarint(n<<1 | 1) uvarint(base offset)   copy n bytes of the base
//	     uvarint(n<<1)     n bytes                 n new bytes
//
// with n > 0. Deltas are read from disk: applyDelta checks every length
// and offset against the base and the declared target length, and every op
// consumes input, so a corrupt delta errors and never loops or over-reads.

// deltaBlock is the granularity of the base's index.
const deltaBlock = 16

var errCorruptDelta = errors.New("store: corrupt delta")

// encodeDelta writes target as a delta against base. It gives up, and
// returns nil, once the delta would be longer than limit bytes.
func encodeDelta(base, target []byte, limit int) []byte {
	out := binary.AppendUvarint(make([]byte, 0, 64), uint64(len(target)))
	idx := newBlockIndex(base)
	lit := 0 // start of the new bytes not yet written
	for j := 0; j+deltaBlock <= len(target); {
		cand := idx.lookup(target[j:])
		if cand < 0 || string(base[cand:cand+deltaBlock]) != string(target[j:j+deltaBlock]) {
			j++
			if len(out)+j-lit > limit {
				return nil
			}
			continue
		}
		s, t := cand, j
		for s > 0 && t > lit && base[s-1] == target[t-1] {
			s, t = s-1, t-1
		}
		end := j + deltaBlock + commonPrefix(base[cand+deltaBlock:], target[j+deltaBlock:])
		out = appendLiteral(out, target[lit:t])
		out = binary.AppendUvarint(out, uint64(end-t)<<1|1)
		out = binary.AppendUvarint(out, uint64(s))
		if len(out) > limit {
			return nil
		}
		j, lit = end, end
	}
	out = appendLiteral(out, target[lit:])
	if len(out) > limit {
		return nil
	}
	return out
}

func appendLiteral(out, b []byte) []byte {
	if len(b) == 0 {
		return out
	}
	out = binary.AppendUvarint(out, uint64(len(b))<<1)
	return append(out, b...)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// blockIndex maps the hash of each aligned block of the base to where the
// block starts (plus one: zero is empty). A later block with the same hash
// replaces an earlier one; a miss costs only size.
type blockIndex struct {
	slots []int32
	shift uint
}

func newBlockIndex(base []byte) blockIndex {
	n := len(base) / deltaBlock
	order := max(bits.Len(uint(n))+1, 4)
	idx := blockIndex{slots: make([]int32, 1<<order), shift: uint(64 - order)}
	for i := 0; i+deltaBlock <= len(base); i += deltaBlock {
		idx.slots[idx.slot(base[i:])] = int32(i + 1)
	}
	return idx
}

func (x blockIndex) slot(b []byte) uint64 {
	h := binary.LittleEndian.Uint64(b)*0x9E3779B185EBCA87 ^ binary.LittleEndian.Uint64(b[8:])*0xC2B2AE3D27D4EB4F
	return (h * 0x165667B19E3779F9) >> x.shift
}

// lookup is where a block of the base that may equal b[:deltaBlock]
// starts, or -1.
func (x blockIndex) lookup(b []byte) int {
	return int(x.slots[x.slot(b)]) - 1
}

// applyDelta rebuilds a delta's target from its base, appended to dst[:0]
// (dst only lends its capacity). maxLen bounds the target length the delta
// may declare.
func applyDelta(dst, base, delta []byte, maxLen int) ([]byte, error) {
	size, n := binary.Uvarint(delta)
	if n <= 0 || size > uint64(maxLen) {
		return nil, errCorruptDelta
	}
	delta = delta[n:]
	out := dst[:0]
	if uint64(cap(out)) < size {
		out = make([]byte, 0, size)
	}
	for len(delta) > 0 {
		op, n := binary.Uvarint(delta)
		if n <= 0 {
			return nil, errCorruptDelta
		}
		delta = delta[n:]
		length := op >> 1
		if length == 0 || length > size-uint64(len(out)) {
			return nil, errCorruptDelta
		}
		if op&1 == 0 {
			if length > uint64(len(delta)) {
				return nil, errCorruptDelta
			}
			out = append(out, delta[:length]...)
			delta = delta[length:]
			continue
		}
		off, n := binary.Uvarint(delta)
		if n <= 0 || off > uint64(len(base)) || length > uint64(len(base))-off {
			return nil, errCorruptDelta
		}
		delta = delta[n:]
		out = append(out, base[off:off+length]...)
	}
	if uint64(len(out)) != size {
		return nil, errCorruptDelta
	}
	return out, nil
}
