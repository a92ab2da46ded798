package api

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuotePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a/b.go", "a/b.go"},
		{"héllo/日本", "héllo/日本"},
		{"\xff\xfe", `"\377\376"`},
		{"a\xffbc", `"a\377bc"`},
		{"tab\there", `"tab\there"`},
		{"new\nline", `"new\nline"`},
		{`q"uote`, `"q\"uote"`},
		{`back\slash`, `"back\\slash"`},
		{"\x01\x7f", `"\001\177"`},
		{`"x"`, `"\"x\""`},
	} {
		if got := QuotePath(tc.in); got != tc.want {
			t.Errorf("QuotePath(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if back, err := UnquotePath(tc.want); err != nil || back != tc.in {
			t.Errorf("UnquotePath(%s) = %q, %v; want %q", tc.want, back, err, tc.in)
		}
	}
}

func TestUnquotePathMalformed(t *testing.T) {
	for _, s := range []string{`"\"`, `"a"b"`, `"\q"`, `"\37"`, `"\400"`, `"\`} {
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			if got, err := UnquotePath(s); err == nil {
				t.Errorf("UnquotePath(%s) = %q, want an error", s, got)
			}
		}
	}
	if got, err := UnquotePath(`plain`); err != nil || got != "plain" {
		t.Errorf("UnquotePath(plain) = %q, %v", got, err)
	}
}

func FuzzQuotePath(f *testing.F) {
	for _, s := range []string{"", "a", "\xff\xfe", `"x"`, "a\nb", `\`, "日本\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := QuotePath(s)
		back, err := UnquotePath(q)
		if err != nil || back != s {
			t.Fatalf("UnquotePath(QuotePath(%q)) = %q, %v", s, back, err)
		}
		if !utf8.ValidString(q) {
			t.Fatalf("QuotePath(%q) = %q is not valid UTF-8", s, q)
		}
		plain := utf8.ValidString(s) && !strings.ContainsAny(s, "\"\\")
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == 0x7f {
				plain = false
			}
		}
		if plain && q != s {
			t.Fatalf("QuotePath(%q) = %q, want it unchanged", s, q)
		}
	})
}
