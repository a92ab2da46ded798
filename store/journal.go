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
	// Shared lists the other runs and tool calls that were open when the
	// change was captured, besides the one above: the disk does not say
	// which of them wrote it. Nil when at most one was open.
	Shared []Party
}

// Party is a run, or one tool call of it, open when a change was captured.
// Call is empty for a run with no tool window open.
type Party struct {
	Session, Run, Call string
}

// Parties is every run and tool call open when the change was captured:
// the one the Attr names (if any), then Shared.
func (a Attr) Parties() []Party {
	if a.Session == "" && a.Run == "" {
		return a.Shared
	}
	return append([]Party{{a.Session, a.Run, a.Call}}, a.Shared...)
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

// A journal entry is stored in one of two encodings. The first (written
// before; still read): the ChangeKind byte, the time (8 bytes, big-endian),
// the path, the State, the attribution. The compact one, written now: the
// ChangeKind with changeCompact set, the path, the State (compact), the
// time as a varint less the State's Recorded (the two are moments apart),
// the attribution. The attribution is the session, run and call strings,
// the restore flag and the optional Shared extension in both.
const changeCompact = 0x80

func (c Change) encode() []byte {
	b := make([]byte, 0, 48+len(c.Path)+len(c.Attr.Session)+len(c.Attr.Run)+len(c.Attr.Call))
	b = append(b, changeCompact|byte(c.Kind))
	b = appendString(b, c.Path)
	b = c.State.appendTo(b)
	b = binary.AppendVarint(b, c.Time-c.State.Recorded)
	b = appendString(b, c.Attr.Session)
	b = appendString(b, c.Attr.Run)
	b = appendString(b, c.Attr.Call)
	if c.Attr.Restore {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return appendShared(b, c.Attr.Shared)
}

// sharedTag starts the optional extension after the restore flag that
// lists Attr.Shared. Entries written before it existed end at the flag; a
// reader that does not know a tag ignores what follows it.
const sharedTag = 1

func appendShared(b []byte, shared []Party) []byte {
	if len(shared) == 0 {
		return b
	}
	b = append(b, sharedTag)
	b = binary.AppendUvarint(b, uint64(len(shared)))
	for _, p := range shared {
		b = appendString(b, p.Session)
		b = appendString(b, p.Run)
		b = appendString(b, p.Call)
	}
	return b
}

func decodeShared(b []byte) ([]Party, error) {
	if len(b) == 0 || b[0] != sharedTag {
		return nil, nil
	}
	n, k := binary.Uvarint(b[1:])
	// Each party takes at least three bytes: a bound on a corrupt count.
	if k <= 0 || n > uint64(len(b))/3 {
		return nil, errShort
	}
	b = b[1+k:]
	var out []Party
	for range n {
		var p Party
		var err error
		if p.Session, b, err = readString(b); err != nil {
			return nil, err
		}
		if p.Run, b, err = readString(b); err != nil {
			return nil, err
		}
		if p.Call, b, err = readString(b); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func decodeChange(seq uint64, b []byte) (Change, error) {
	c := Change{Seq: seq}
	if len(b) > 0 && b[0]&changeCompact != 0 {
		return decodeCompactChange(c, b)
	}
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
	return decodeAttr(c, b)
}

func decodeCompactChange(c Change, b []byte) (Change, error) {
	c.Kind = ChangeKind(b[0] &^ changeCompact)
	var err error
	if c.Path, b, err = readString(b[1:]); err != nil {
		return c, err
	}
	if c.State, b, err = decodeState(b); err != nil {
		return c, err
	}
	dt, n := binary.Varint(b)
	if n <= 0 {
		return c, errShort
	}
	c.Time = c.State.Recorded + dt
	return decodeAttr(c, b[n:])
}

// decodeAttr reads the attribution that ends a journal entry.
func decodeAttr(c Change, b []byte) (Change, error) {
	var err error
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
	c.Attr.Shared, err = decodeShared(b[1:])
	return c, err
}
