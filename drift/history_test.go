package drift

import (
	"errors"
	"strconv"
	"testing"

	"github.com/ckptdev/ckpt/snapshot"
)

func TestParseVersionRef(t *testing.T) {
	cases := []struct {
		in      string
		seq     uint64
		ok, bad bool
	}{
		{"@1", 1, true, false},
		{"@18446744073709551615", 1<<64 - 1, true, false},
		{"ck1-abcdef", 0, false, false},
		{"", 0, false, false},
		{"@", 0, true, true},
		{"@0", 0, true, true},
		{"@01", 0, true, true},
		{"@+1", 0, true, true},
		{"@-1", 0, true, true},
		{"@1x", 0, true, true},
		{"@ 1", 0, true, true},
		{"@18446744073709551616", 0, true, true},
		{"@١", 0, true, true}, // a non-ASCII digit
	}
	for _, c := range cases {
		seq, ok, err := ParseVersionRef(c.in)
		if seq != c.seq || ok != c.ok || (err != nil) != c.bad {
			t.Errorf("ParseVersionRef(%q) = %d, %v, %v; want %d, %v, error %v", c.in, seq, ok, err, c.seq, c.ok, c.bad)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseVersionRef(%q): error %v is not bad input", c.in, err)
		}
	}
}

// FuzzVersionRef: a reference either is not one (a checkpoint id, which
// never starts with @), is bad input, or names a seq that formats back to
// exactly the same text.
func FuzzVersionRef(f *testing.F) {
	for _, s := range []string{"@1", "@42", "@0", "@01", "@", "ck3-abcdef", "@18446744073709551615", "@18446744073709551616", "@1\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		seq, ok, err := ParseVersionRef(ref)
		if ok && snapshot.ValidID(ref) {
			t.Fatalf("%q is both a checkpoint id and a version reference", ref)
		}
		switch {
		case !ok:
			if err != nil || len(ref) > 0 && ref[0] == '@' {
				t.Fatalf("ParseVersionRef(%q): ok false with error %v", ref, err)
			}
		case err != nil:
			if !errors.Is(err, ErrInvalid) || seq != 0 {
				t.Fatalf("ParseVersionRef(%q): %d, %v; want 0 and bad input", ref, seq, err)
			}
		default:
			if seq == 0 || FormatVersionRef(seq) != ref || ref != "@"+strconv.FormatUint(seq, 10) {
				t.Fatalf("ParseVersionRef(%q) = %d, which formats as %q", ref, seq, FormatVersionRef(seq))
			}
		}
	})
}
