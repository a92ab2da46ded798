package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Count(0, "path"), "0 paths"},
		{Count(1, "path"), "1 path"},
		{Count(2, "path"), "2 paths"},
		{Count(1, "directory", "directories"), "1 directory"},
		{Count(3, "directory", "directories"), "3 directories"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
