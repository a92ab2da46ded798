package store

import (
	"encoding/binary"
	"encoding/json"
	"time"
)

// Checkpoint and run records are the bulk of a long agent session's
// metadata after its journal (a 500-turn session: 1,003 checkpoints and
// 500 runs, 180 and 310 bytes each as JSON; a run record went to the value
// log, which nothing compresses). They are stored in a compact binary
// encoding: the byte recordBinary (a JSON record starts with '{'), then
// each field in order, strings and lists with a uvarint length, integers
// as uvarints, times as unix nanoseconds (0 for the zero time), floats
// never. A decoder ignores bytes after the fields it knows, so a field may
// be added at the end. Records written as JSON before read as they did.
const recordBinary = 0x01

// binaryRecord is a record stored in the binary encoding.
type binaryRecord interface {
	appendBinary(b []byte) []byte
}

// binaryDecoder decodes a binaryRecord's encoding (without its first byte).
type binaryDecoder interface {
	decodeBinary(d *recordDecoder)
}

// marshalRecord is v's stored encoding: binary if it has one, else JSON.
func marshalRecord(v any) ([]byte, error) {
	if r, ok := v.(binaryRecord); ok {
		return r.appendBinary([]byte{recordBinary}), nil
	}
	return json.Marshal(v)
}

// unmarshalRecord decodes a stored record in either encoding.
func unmarshalRecord(b []byte, v any) error {
	if len(b) > 0 && b[0] == recordBinary {
		if r, ok := v.(binaryDecoder); ok {
			d := &recordDecoder{b: b[1:]}
			r.decodeBinary(d)
			return d.err
		}
	}
	return json.Unmarshal(b, v)
}

func appendUint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(t.UnixNano()))
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// recordDecoder reads fields in order; after the first error every read
// returns the zero value and err keeps the error.
type recordDecoder struct {
	b   []byte
	err error
}

func (d *recordDecoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *recordDecoder) int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *recordDecoder) string() string {
	if d.err != nil {
		return ""
	}
	s, rest, err := readString(d.b)
	d.b, d.err = rest, err
	return s
}

func (d *recordDecoder) time() time.Time {
	n := d.uint()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(n)).UTC()
}

func (d *recordDecoder) strings() []string {
	n := d.uint()
	if n > uint64(len(d.b)) { // each takes a byte at least
		d.err = errShort
	}
	if d.err != nil || n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string())
	}
	return out
}

func (d *recordDecoder) bool() bool { return d.uint() == 1 }

func (cp Checkpoint) appendBinary(b []byte) []byte {
	b = appendString(b, cp.ID)
	b = appendUint(b, cp.Ord)
	b = appendUint(b, cp.Seq)
	b = appendString(b, cp.Reason)
	b = appendTime(b, cp.CreatedAt)
	b = appendString(b, cp.Session)
	b = appendString(b, cp.Run)
	b = appendString(b, cp.Call)
	b = appendString(b, cp.Message)
	b = binary.BigEndian.AppendUint64(b, cp.Fingerprint)
	b = appendUint(b, uint64(cp.Files))
	return appendStrings(b, cp.Unreadable)
}

func (cp *Checkpoint) decodeBinary(d *recordDecoder) {
	cp.ID, cp.Ord, cp.Seq = d.string(), d.uint(), d.uint()
	cp.Reason, cp.CreatedAt = d.string(), d.time()
	cp.Session, cp.Run, cp.Call, cp.Message = d.string(), d.string(), d.string(), d.string()
	if d.err == nil && len(d.b) < 8 {
		d.err = errShort
	}
	if d.err != nil {
		return
	}
	cp.Fingerprint, d.b = binary.BigEndian.Uint64(d.b), d.b[8:]
	cp.Files = int64(d.uint())
	cp.Unreadable = d.strings()
}

func (r Run) appendBinary(b []byte) []byte {
	b = appendString(b, r.Session)
	b = appendString(b, r.Run)
	b = appendString(b, r.BaselineID)
	b = appendBool(b, r.Drifted)
	b = appendStrings(b, r.Drift)
	b = appendString(b, r.EndID)
	b = appendTime(b, r.StartedAt)
	b = appendTime(b, r.EndedAt)
	b = appendTime(b, r.UpdatedAt)
	b = appendUint(b, r.StartSeq)
	b = appendUint(b, r.EndSeq)
	b = appendUint(b, r.OpenSeq)
	return appendString(b, r.Warning)
}

func (r *Run) decodeBinary(d *recordDecoder) {
	r.Session, r.Run, r.BaselineID = d.string(), d.string(), d.string()
	r.Drifted, r.Drift, r.EndID = d.bool(), d.strings(), d.string()
	r.StartedAt, r.EndedAt, r.UpdatedAt = d.time(), d.time(), d.time()
	r.StartSeq, r.EndSeq, r.OpenSeq = d.uint(), d.uint(), d.uint()
	r.Warning = d.string()
}
