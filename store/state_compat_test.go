package store

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// oldStateEncoding is the fixed-width State encoding stores wrote before
// the compact one.
func oldStateEncoding(s State) []byte {
	b := []byte{byte(s.Kind)}
	b = binary.BigEndian.AppendUint32(b, uint32(s.Mode))
	b = binary.BigEndian.AppendUint64(b, s.Hash.H1)
	b = binary.BigEndian.AppendUint64(b, s.Hash.H2)
	b = binary.BigEndian.AppendUint64(b, uint64(s.Hash.Size))
	stored := byte(0)
	if s.Stored {
		stored = 1
	}
	b = append(b, stored)
	for _, v := range []uint64{uint64(s.Mtime), uint64(s.Ctime), s.Inode, uint64(s.Recorded), s.Seq} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

// oldChangeEncoding is the journal entry encoding stores wrote before the
// compact one.
func oldChangeEncoding(c Change) []byte {
	b := append([]byte{byte(c.Kind)}, binary.BigEndian.AppendUint64(nil, uint64(c.Time))...)
	b = appendString(b, c.Path)
	b = append(b, oldStateEncoding(c.State)...)
	b = appendString(b, c.Attr.Session)
	b = appendString(b, c.Attr.Run)
	b = appendString(b, c.Attr.Call)
	b = append(b, 0)
	return appendShared(b, c.Attr.Shared)
}

var stateSamples = []State{
	{},
	{Kind: File, Mode: 0o644, Hash: Hash{H1: 1<<64 - 1, H2: 7, Size: 12345}, Stored: true, Mtime: 1764615549123456789,
		Ctime: 1764615549123456789, Inode: 1 << 40, Recorded: 1764615551000000000, Seq: 99},
	{Kind: Symlink, Mode: 0o777, Hash: Hash{H1: 3, Size: 5}, Mtime: -5e9, Ctime: 1e18, Recorded: 0, Seq: 1<<64 - 1},
	{Kind: File, Mode: 0o755, Hash: Hash{Size: -1}, Mtime: 1<<63 - 1, Ctime: -1 << 63, Recorded: -1 << 63},
}

// TestStateEncodings: the compact State and journal encodings round-trip
// every field, extreme values included, in far fewer bytes than the
// fixed-width ones, and entries in the fixed-width encodings (stores
// written before) still decode.
func TestStateEncodings(t *testing.T) {
	for i, st := range stateSamples {
		b := st.appendTo(nil)
		got, rest, err := decodeState(append(b, 0xAB))
		if err != nil || !reflect.DeepEqual(got, st) || len(rest) != 1 {
			t.Errorf("sample %d: compact round trip = %+v, %d left, %v", i, got, len(rest), err)
		}
		if k, err := stateKind(b); err != nil || k != st.Kind {
			t.Errorf("sample %d: stateKind = %v, %v", i, k, err)
		}
		old := oldStateEncoding(st)
		if got, _, err := decodeState(old); err != nil || !reflect.DeepEqual(got, st) {
			t.Errorf("sample %d: old encoding decodes as %+v, %v", i, got, err)
		}
		if k, _ := stateKind(old); k != st.Kind {
			t.Errorf("sample %d: stateKind of the old encoding = %v", i, k)
		}
		for n := range b {
			if _, _, err := decodeState(b[:n]); err == nil {
				t.Fatalf("sample %d: cut at %d of %d bytes, decoded without error", i, n, len(b))
			}
		}
		c := Change{Seq: 5, Path: "dir/file.go", Kind: Modified, State: st, Time: st.Recorded + 1234,
			Attr: Attr{Session: "s1", Run: "r7", Call: "c", Shared: []Party{{"s2", "r1", ""}}}}
		for name, enc := range map[string][]byte{"compact": c.encode(), "old": oldChangeEncoding(c)} {
			got, err := decodeChange(5, enc)
			if err != nil || !reflect.DeepEqual(got, c) {
				t.Errorf("sample %d: %s journal entry decodes as %+v, %v", i, name, got, err)
			}
		}
	}
	if n, old := len(stateSamples[1].appendTo(nil)), stateLen; n*3 > old*2 {
		t.Errorf("a file's compact state takes %d bytes, want at most 2/3 of the old %d", n, old)
	}
}

// TestOldStateRecordsRead: a store whose journal, path index and entries
// were written in the fixed-width encodings reads them as they were, and
// pruning tells its Absent path-index entries from the others.
func TestOldStateRecordsRead(t *testing.T) {
	s := openTestStore(t)
	st := stateSamples[1]
	st.Seq = 1
	add := Change{Seq: 1, Path: "a", Kind: Added, State: st, Time: st.Recorded}
	del := Change{Seq: 2, Path: "a", Kind: Deleted, Time: st.Recorded + 1}
	confMustWrite(t, s, func(w *Writer) error {
		for _, c := range []Change{add, del} {
			if err := w.set(journalKey(c.Seq), oldChangeEncoding(c)); err != nil {
				return err
			}
			if err := w.set(pathKey(c.Path, c.Seq), oldStateEncoding(c.State)); err != nil {
				return err
			}
		}
		if err := w.set(entryKey("b"), oldStateEncoding(st)); err != nil {
			return err
		}
		w.head = 2
		return nil
	})
	confMustView(t, s, func(r *Reader) error {
		if got, err := r.Change(1); err != nil || !reflect.DeepEqual(got, add) {
			t.Errorf("Change(1) = %+v, %v", got, err)
		}
		if got, err := r.StateAt("a", 1); err != nil || got != st {
			t.Errorf("StateAt(a, 1) = %+v, %v", got, err)
		}
		if got, ok, err := r.Entry("b"); err != nil || !ok || got != st {
			t.Errorf("Entry(b) = %+v, %v, %v", got, ok, err)
		}
		return nil
	})
	confMustWrite(t, s, func(w *Writer) error {
		_, paths, err := w.CompactHistory(2)
		if err == nil && paths != 2 {
			t.Errorf("CompactHistory forgot %d path-index entries of a path deleted at the floor, want 2", paths)
		}
		return err
	})
}
