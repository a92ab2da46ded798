package store

import (
	"encoding/binary"
	"errors"
	"io/fs"
)

// Kind is what a path is in a State.
type Kind uint8

const (
	Absent  Kind = iota // no file: deleted, or never existed
	File                // regular file
	Symlink             // symbolic link; its target is the content
)

// Hash identifies a content: two seeded xxhash64 sums plus the size.
type Hash struct {
	H1, H2 uint64
	Size   int64
}

// State is what one path held at one moment: enough to compare it cheaply
// with the disk (the stat tuple) and to bring it back (the content hash).
type State struct {
	Kind   Kind
	Mode   fs.FileMode // permission bits only
	Hash   Hash
	Stored bool // the content is in the blob store (false: too large or unreadable)
	Mtime  int64
	Ctime  int64
	Inode  uint64
	// Recorded is when this state was observed (unix ns): a file whose mtime
	// is not clearly older than this is re-hashed by the next scan.
	Recorded int64
	// Seq is the journal seq that last changed the content (0 for Absent).
	Seq uint64
}

// Exists reports whether the state is a file or symlink.
func (s State) Exists() bool { return s.Kind != Absent }

// Exec reports whether the executable bit is part of the state.
func (s State) Exec() bool { return s.Kind == File && s.Mode&0o111 != 0 }

// SameContent reports whether two states are the same file for ckpt: kind,
// content and executable bit. Timestamps and other mode bits do not count.
func (s State) SameContent(o State) bool {
	if s.Kind != o.Kind {
		return false
	}
	if s.Kind == Absent {
		return true
	}
	return s.Hash == o.Hash && s.Exec() == o.Exec()
}

// A State is stored in one of two encodings. The first (written before;
// still read) is stateLen bytes of fixed-width big-endian fields, starting
// with the Kind byte (0-2). The compact one, written now, starts with a
// byte that has stateCompact set (never a Kind), the Kind in its low two
// bits and Stored in stateStoredBit, then: the mode (uvarint), the two
// hashes (8 bytes each) unless both are 0 (stateHashBit says they are
// there), the size (varint), Recorded (varint), Mtime as Recorded less
// Mtime and Ctime as Ctime less Mtime (varints: small, since they are
// close), the inode and Seq (uvarints). About 42 bytes instead of 69, in
// every journal entry, path-index entry and entry.
const stateLen = 1 + 4 + 8 + 8 + 8 + 1 + 8 + 8 + 8 + 8 + 8

const (
	stateCompact   = 0x80
	stateStoredBit = 0x04
	stateHashBit   = 0x08
	stateKindMask  = 0x03
)

var (
	errShort    = errors.New("store: record too short")
	errBadState = errors.New("store: a state of no known kind")
)

func (s State) appendTo(b []byte) []byte {
	b0 := byte(stateCompact) | byte(s.Kind)&stateKindMask
	if s.Stored {
		b0 |= stateStoredBit
	}
	hashed := s.Hash.H1 != 0 || s.Hash.H2 != 0
	if hashed {
		b0 |= stateHashBit
	}
	b = append(b, b0)
	b = binary.AppendUvarint(b, uint64(s.Mode))
	if hashed {
		b = binary.BigEndian.AppendUint64(b, s.Hash.H1)
		b = binary.BigEndian.AppendUint64(b, s.Hash.H2)
	}
	b = binary.AppendVarint(b, s.Hash.Size)
	b = binary.AppendVarint(b, s.Recorded)
	b = binary.AppendVarint(b, s.Recorded-s.Mtime)
	b = binary.AppendVarint(b, s.Ctime-s.Mtime)
	b = binary.AppendUvarint(b, s.Inode)
	return binary.AppendUvarint(b, s.Seq)
}

// stateKind is the Kind of an encoded State, in either encoding.
func stateKind(b []byte) (Kind, error) {
	if len(b) == 0 {
		return 0, errShort
	}
	if b[0]&stateCompact != 0 {
		return Kind(b[0] & stateKindMask), nil
	}
	return Kind(b[0]), nil
}

func decodeState(b []byte) (State, []byte, error) {
	if len(b) > 0 && b[0]&stateCompact != 0 {
		return decodeCompactState(b)
	}
	if len(b) < stateLen {
		return State{}, nil, errShort
	}
	var s State
	s.Kind = Kind(b[0])
	if s.Kind > Symlink {
		return State{}, nil, errBadState
	}
	s.Mode = fs.FileMode(binary.BigEndian.Uint32(b[1:]))
	s.Hash.H1 = binary.BigEndian.Uint64(b[5:])
	s.Hash.H2 = binary.BigEndian.Uint64(b[13:])
	s.Hash.Size = int64(binary.BigEndian.Uint64(b[21:]))
	s.Stored = b[29] == 1
	s.Mtime = int64(binary.BigEndian.Uint64(b[30:]))
	s.Ctime = int64(binary.BigEndian.Uint64(b[38:]))
	s.Inode = binary.BigEndian.Uint64(b[46:])
	s.Recorded = int64(binary.BigEndian.Uint64(b[54:]))
	s.Seq = binary.BigEndian.Uint64(b[62:])
	return s, b[stateLen:], nil
}

func decodeCompactState(b []byte) (State, []byte, error) {
	var s State
	b0 := b[0]
	s.Kind, s.Stored = Kind(b0&stateKindMask), b0&stateStoredBit != 0
	if s.Kind > Symlink || b0&^(stateCompact|stateKindMask|stateStoredBit|stateHashBit) != 0 {
		return State{}, nil, errBadState
	}
	d := &recordDecoder{b: b[1:]}
	s.Mode = fs.FileMode(d.uint())
	if b0&stateHashBit != 0 {
		if d.err == nil && len(d.b) < 16 {
			d.err = errShort
		}
		if d.err != nil {
			return State{}, nil, d.err
		}
		s.Hash.H1 = binary.BigEndian.Uint64(d.b)
		s.Hash.H2 = binary.BigEndian.Uint64(d.b[8:])
		d.b = d.b[16:]
	}
	s.Hash.Size = d.int()
	s.Recorded = d.int()
	s.Mtime = s.Recorded - d.int()
	s.Ctime = s.Mtime + d.int()
	s.Inode = d.uint()
	s.Seq = d.uint()
	if d.err != nil {
		return State{}, nil, d.err
	}
	return s, d.b, nil
}
