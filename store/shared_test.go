package store

import (
	"reflect"
	"testing"
)

// TestChangeSharedEncoding: a change captured while several runs and tool
// calls were open keeps all of them, and an entry written before the list
// existed (ending at the restore flag) still decodes, with none.
func TestChangeSharedEncoding(t *testing.T) {
	c := Change{Path: "f", Kind: Modified, Time: 5, Attr: Attr{
		Session: "s2", Run: "r2",
		Shared: []Party{{Session: "s1", Run: "r1", Call: "c1"}, {Session: "s3", Run: "r3"}},
	}}
	got, err := decodeChange(4, c.encode())
	c.Seq = 4
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, c)
	}
	want := []Party{{"s2", "r2", ""}, {"s1", "r1", "c1"}, {"s3", "r3", ""}}
	if p := got.Attr.Parties(); !reflect.DeepEqual(p, want) {
		t.Fatalf("Parties() = %+v, want %+v", p, want)
	}

	old := Change{Path: "f", Kind: Added, Attr: Attr{Session: "s", Run: "r", Call: "c"}}
	b := old.encode()
	if b[len(b)-1] != 0 {
		t.Fatalf("an entry with nobody else open must end at the restore flag, as before: % x", b)
	}
	got, err = decodeChange(1, b)
	if err != nil || got.Attr.Shared != nil || got.Attr.Call != "c" {
		t.Fatalf("old-format entry: %+v, %v", got, err)
	}
	// An unknown extension (a later format) is ignored, not an error.
	if got, err = decodeChange(1, append(b, 9, 9, 9)); err != nil || got.Attr.Shared != nil {
		t.Fatalf("unknown extension: %+v, %v", got, err)
	}
	// A truncated list is an error.
	b = c.encode()
	if _, err := decodeChange(1, b[:len(b)-2]); err == nil {
		t.Fatal("a truncated shared list decoded")
	}
	if p := (Attr{}).Parties(); len(p) != 0 {
		t.Fatalf("the person's change has parties %+v", p)
	}
}
