package watcher

import (
	"path"
	"testing"
)

func TestWildmatch(t *testing.T) {
	// From git's t/t3070-wildmatch.sh: pattern, text, match with and
	// without WM_PATHNAME.
	cases := []struct {
		pat, text       string
		pathname, plain bool
	}{
		{"foo", "foo", true, true},
		{"bar", "foo", false, false},
		{"", "", true, true},
		{"???", "foo", true, true},
		{"??", "foo", false, false},
		{"*", "foo", true, true},
		{"f*", "foo", true, true},
		{"*f", "foo", false, false},
		{"*foo*", "foo", true, true},
		{"*ob*a*r*", "foobar", true, true},
		{"*ab", "aaaaaaabababab", true, true},
		{`foo\*`, "foo*", true, true},
		{`foo\*bar`, "foobar", false, false},
		{`f\\oo`, `f\oo`, true, true},
		{"*[al]?", "ball", true, true},
		{"[ten]", "ten", false, false},
		{"**[!te]", "ten", true, true},
		{"**[!ten]", "ten", false, false},
		{"t[a-g]n", "ten", true, true},
		{"t[!a-g]n", "ten", false, false},
		{"t[!a-g]n", "ton", true, true},
		{"t[^a-g]n", "ton", true, true},
		{"a[]]b", "a]b", true, true},
		{"a[]-]b", "a-b", true, true},
		{"a[]-]b", "a]b", true, true},
		{"a[]-]b", "aab", false, false},
		{"a[]a-]b", "aab", true, true},
		{"]", "]", true, true},
		{"foo*bar", "foo/baz/bar", false, true},
		{"foo**bar", "foo/baz/bar", false, true},
		{"foo/*/bar", "foo/baz/bar", true, true},
		{"foo/**/bar", "foo/baz/bar", true, true},
		{"foo/**/bar", "foo/b/a/z/bar", true, true},
		{"foo/**/**/bar", "foo/b/a/z/bar", true, true},
		{"foo/**/bar", "foo/bar", true, false},
		{"foo?bar", "foo/bar", false, true},
		{"foo[/]bar", "foo/bar", false, true},
		{"**/foo", "foo", true, false},
		{"**/foo", "XXX/foo", true, true},
		{"**/foo", "bar/baz/foo", true, true},
		{"*/foo", "bar/baz/foo", false, true},
		{"**/bar*", "foo/bar/baz", false, true},
		{"**/bar/*", "deep/foo/bar/baz", true, true},
		{"**/bar/*", "deep/foo/bar/baz/", false, true},
		{"**/bar/**", "deep/foo/bar/baz/", true, true},
		{"**/bar/*", "deep/foo/bar", false, false},
		{"**/bar/**", "deep/foo/bar/", true, true},
		{"*/bar/**", "foo/bar/baz/x", true, true},
		{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true, true},
		{"[[:digit:][:upper:][:space:]]", "a", false, false},
		{"[[:digit:][:upper:][:space:]]", " ", true, true},
		{"[[:digit:][:punct:][:space:]]", ".", true, true},
		{"[[:xdigit:]]", "f", true, true},
		{"[a-c[:digit:]x-z]", "5", true, true},
		{"[[:nope:]]", "a", false, false},
		{"[a-", "a", false, false},
		{"[", "[", false, false},
		{`\`, `\`, false, false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true, true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true, true},
		{"*/*/*", "foo/bb/aa/rr", false, true},
		{"**/**/**", "foo/bb/aa/rr", true, true},
	}
	for _, c := range cases {
		if got := wildmatch(c.pat, c.text, true); got != c.pathname {
			t.Errorf("wildmatch(%q, %q, pathname) = %v, want %v", c.pat, c.text, got, c.pathname)
		}
		if got := wildmatch(c.pat, c.text, false); got != c.plain {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pat, c.text, got, c.plain)
		}
	}
}

// FuzzIgnorePattern parses arbitrary ignore-file content and matches it
// against an arbitrary path, at the root and in a subdirectory. It must not
// panic.
func FuzzIgnorePattern(f *testing.F) {
	for _, s := range []string{
		"*.log", "!keep.log", "build/", "/root", "a/**/z", "**/tmp", "logs/**", `\#x`, `\!x`,
		`x\ `, "x   ", "[a-z]?", "[!a]", "[^a]", "[[:alpha:]]", "[[:bogus:]]", "[", `\`, "***",
		"a**b/**/", "\xef\xbb\xbfbom\r\n#c\n\x00", "/", "!", "[]-]", "[a-\\]]",
	} {
		f.Add(s, "a/b/c.log", false)
		f.Add(s, "x", true)
	}
	f.Fuzz(func(t *testing.T, content, rel string, isDir bool) {
		pats := parseIgnoreLines(nil, []byte(content))
		name := path.Base(rel)
		(&ruleList{pats: pats}).match(rel, name, isDir)
		(&ruleList{base: "sub/", pats: pats}).match("sub/"+rel, name, isDir)
		wildmatch(content, rel, true)
		wildmatch(content, rel, false)
		NewIgnorer("/nonexistent/ckpt-fuzz", []string{content}).Ignored(rel, isDir)
	})
}
