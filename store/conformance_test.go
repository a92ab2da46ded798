package store

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"runtime"
	"testing"
)

func TestConformance(t *testing.T) {
	RunConformance(t, func(t *testing.T) *Store { return openTestStore(t) })
}

// seedChanges are encoded journal values for the fuzzers' corpora.
func seedChanges() [][]byte {
	st := confFileState("content", true)
	st.Seq = 7
	return [][]byte{
		Change{Path: "a/b", Kind: Added, State: st, Time: 123}.encode(),
		Change{Path: "", Kind: Deleted, Attr: Attr{Session: "s", Run: "r", Call: "c", Restore: true}}.encode(),
		Change{Path: "s", Kind: Modified, Attr: Attr{Session: "s2", Run: "r2", Shared: []Party{{"s1", "r1", "c1"}, {"s1", "r1", ""}}}}.encode(),
		Change{Path: "ü/ñ\x01", Kind: Modified, State: State{Kind: Symlink, Hash: HashBytes([]byte("../x"))}}.encode(),
		{},
		{1},
		bytes.Repeat([]byte{0xff}, 100),
	}
}

// FuzzDecodeChange: journal values are read from disk; whatever they hold,
// decoding must not panic, and what decodes re-encodes to the same change.
func FuzzDecodeChange(f *testing.F) {
	for _, b := range seedChanges() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeChange(9, b)
		if err != nil {
			return
		}
		c2, err := decodeChange(9, c.encode())
		if err != nil {
			t.Fatalf("re-encoded change does not decode: %v", err)
		}
		if !reflect.DeepEqual(c2, c) {
			t.Fatalf("round trip: %+v != %+v", c2, c)
		}
	})
}

// FuzzDecodeState: entry and path-index values are read from disk.
func FuzzDecodeState(f *testing.F) {
	st := confFileState("x", false)
	f.Add(st.appendTo(nil))
	f.Add(State{}.appendTo(nil))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, stateLen+3))
	f.Add(oldStateEncoding(st))
	f.Add(bytes.Repeat([]byte{0x7f}, stateLen+3))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, rest, err := decodeState(b)
		compact := len(b) > 0 && b[0]&stateCompact != 0
		if err != nil {
			if len(b) >= stateLen && !compact && Kind(b[0]) <= Symlink {
				t.Fatalf("%d bytes did not decode: %v", len(b), err)
			}
			return
		}
		if !compact && len(rest) != len(b)-stateLen {
			t.Fatalf("rest %d bytes, want %d", len(rest), len(b)-stateLen)
		}
		if compact && (len(rest) > len(b) || !bytes.Equal(rest, b[len(b)-len(rest):])) {
			t.Fatalf("rest is not what follows the state")
		}
		s2, _, err := decodeState(s.appendTo(nil))
		if err != nil || s2 != s {
			t.Fatalf("round trip: %+v, %v; want %+v", s2, err, s)
		}
		_ = s.Exists()
		_ = s.Exec()
		_ = s.SameContent(s2)
	})
}

// FuzzDecodeChunk: blob chunks are read from disk. Decoding must not panic,
// and a valid chunk decodes to what was encoded.
func FuzzDecodeChunk(f *testing.F) {
	for _, b := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("abc"), 1000)} {
		f.Add(EncodeBlob(b)[0])
	}
	f.Add([]byte{codecZstd, 0x28, 0xb5, 0x2f, 0xfd})
	f.Add(EncodeBlobFast(bytes.Repeat([]byte("abc"), 1000))[0])
	f.Add([]byte{7})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := decodeChunk(nil, b)
		if err != nil {
			return
		}
		if len(out) > ChunkSize {
			t.Fatalf("a chunk decoded to %d bytes, more than ChunkSize", len(out))
		}
	})
}

// TestDecodeChunkDeclaredSize: a corrupt zstd chunk whose frame header
// declares a huge content size must fail without allocating that size. A
// chunk never holds more than ChunkSize bytes; the decoder's default limit
// is 64 GiB, so a corrupt chunk can make a restore or diff allocate up to
// that much (and die of it) before the error.
func TestDecodeChunkDeclaredSize(t *testing.T) {
	const declared = 256 << 20
	frame := []byte{codecZstd, 0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00} // magic; FCS 8 bytes, not single-segment; window 1 KiB
	frame = binary.LittleEndian.AppendUint64(frame, declared)
	frame = append(frame, 0x09, 0x00, 0x00, 'x') // last raw block of 1 byte
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeChunk(nil, frame)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a frame that declares 256 MiB and holds 1 byte decoded without error")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*ChunkSize {
		t.Errorf("decoding a corrupt %d-byte chunk allocated %d MiB (it declares %d MiB): cap the decoder at ChunkSize",
			len(frame), grew>>20, declared>>20)
	}
}
