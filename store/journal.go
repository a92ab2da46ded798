package store

import (
	"encoding/binary"
	"fmt"
)

// ChangeKind is how a journal entry changed its path.
type ChangeKind uint8

const (
	Added ChangeKind = iota + 1
	Modified
	Deleted
)

func (k ChangeKind) String() string {
	switch k {
	case Added:
		return "added"
	case Modified:
		return "modified"
	case Deleted:
		return "deleted"
	}
	return fmt.Sprintf("ChangeKind(%d)", k)
}

// Attr says who a change belongs to. The zero Attr is a change made outside
// any run: the person's, or another program's.
type Attr struct {
	Session string
	Run     string
	Call    string // tool call id, inside a tool window
	Restore bool   // written by ckpt's own restore
}

// InRun reports whether the change was made by an agent run or a restore,
// as opposed to the person.
func (a Attr) InRun() bool { return a.Session != "" || a.Run != "" || a.Restore }

// Change is one journal entry.
type Change struct {
	Seq   uint64
	Path  string
	Kind  ChangeKind
	State State // the new state (Absent for Deleted)
	Attr  Attr
	Time  int64 // unix ns
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func readString(b []byte) (string, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return "", nil, errShort
	}
	return string(b[k : k+int(n)]), b[k+int(n):], nil
}

func (c Change) encode() []byte {
	b := make([]byte, 0, stateLen+len(c.Path)+32)
	b = append(b, byte(c.Kind))
	b = binary.BigEndian.AppendUint64(b, uint64(c.Time))
	b = appendString(b, c.Path)
	b = c.State.appendTo(b)
	b = appendString(b, c.Attr.Session)
	b = appendString(b, c.Attr.Run)
	b = appendString(b, c.Attr.Call)
	if c.Attr.Restore {
		return append(b, 1)
	}
	return append(b, 0)
}

func decodeChange(seq uint64, b []byte) (Change, error) {
	c := Change{Seq: seq}
	if len(b) < 9 {
		return c, errShort
	}
	c.Kind = ChangeKind(b[0])
	c.Time = int64(binary.BigEndian.Uint64(b[1:]))
	var err error
	if c.Path, b, err = readString(b[9:]); err != nil {
		return c, err
	}
	if c.State, b, err = decodeState(b); err != nil {
		return c, err
	}
	if c.Attr.Session, b, err = readString(b); err != nil {
		return c, err
	}
	if c.Attr.Run, b, err = readString(b); err != nil {
		return c, err
	}
	if c.Attr.Call, b, err = readString(b); err != nil {
		return c, err
	}
	if len(b) < 1 {
		return c, errShort
	}
	c.Attr.Restore = b[0] == 1
	return c, nil
}
