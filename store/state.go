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

const stateLen = 1 + 4 + 8 + 8 + 8 + 1 + 8 + 8 + 8 + 8 + 8

var errShort = errors.New("store: record too short")

func (s State) appendTo(b []byte) []byte {
	b = append(b, byte(s.Kind))
	b = binary.BigEndian.AppendUint32(b, uint32(s.Mode))
	b = binary.BigEndian.AppendUint64(b, s.Hash.H1)
	b = binary.BigEndian.AppendUint64(b, s.Hash.H2)
	b = binary.BigEndian.AppendUint64(b, uint64(s.Hash.Size))
	stored := byte(0)
	if s.Stored {
		stored = 1
	}
	b = append(b, stored)
	b = binary.BigEndian.AppendUint64(b, uint64(s.Mtime))
	b = binary.BigEndian.AppendUint64(b, uint64(s.Ctime))
	b = binary.BigEndian.AppendUint64(b, s.Inode)
	b = binary.BigEndian.AppendUint64(b, uint64(s.Recorded))
	return binary.BigEndian.AppendUint64(b, s.Seq)
}

func decodeState(b []byte) (State, []byte, error) {
	if len(b) < stateLen {
		return State{}, nil, errShort
	}
	var s State
	s.Kind = Kind(b[0])
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
