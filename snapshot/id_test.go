package snapshot

import (
	"regexp"
	"strings"
	"testing"
)

// idOracle is the checkpoint id form ValidID implements by hand.
var idOracle = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func FuzzValidID(f *testing.F) {
	for _, s := range []string{"", "a", "ck1-abc123", ".x", "-x", "_x", "x.y_z-1", "a/b", "é", "a\n",
		strings.Repeat("a", 128), strings.Repeat("a", 129)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidID(s), idOracle.MatchString(s); got != want {
			t.Fatalf("ValidID(%q) = %v, want %v", s, got, want)
		}
	})
}
