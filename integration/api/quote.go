package api

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Paths in ckpt's output and input are quoted as git quotes them
// (core.quotePath, but leaving valid UTF-8 as it is): a path that is valid
// UTF-8 with no control character, '"' or '\' is written as it is; any
// other is written between double quotes with C escapes: \a \b \t \n \v \f
// \r \" \\, and \ooo (three octal digits) for any other control byte and
// for every byte that is not part of valid UTF-8. So JSON stays valid and
// lossless, and a script can hand a path it read back to ckpt.
//
// Every path in the Engine's results is quoted, and every path in its
// requests is unquoted (UnquotePath): the CLI and the socket API carry the
// quoted form.

// QuotePath is the quoted form of a path (see above).
func QuotePath(p string) string {
	if !needsQuote(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 2)
	b.WriteByte('"')
	for i := 0; i < len(p); {
		c := p[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(p[i:])
			if r == utf8.RuneError && n == 1 {
				writeOctal(&b, c)
			} else {
				b.WriteString(p[i : i+n])
			}
			i += n
			continue
		}
		if e := cEscape(c); e != 0 {
			b.WriteByte('\\')
			b.WriteByte(e)
		} else if c < 0x20 || c == 0x7f {
			writeOctal(&b, c)
		} else {
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('"')
	return b.String()
}

// UnquotePath reads a path in the quoted form back: one that starts and
// ends with '"' is unescaped, any other is the path itself. A quoted form
// that is malformed is an error.
func UnquotePath(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s, nil
	}
	body := s[1 : len(s)-1]
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"':
			return "", errBadQuote
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(body) {
			return "", errBadQuote
		}
		c = body[i]
		if u := cUnescape(c); u != 0 {
			b.WriteByte(u)
			continue
		}
		if i+2 >= len(body) || !isOctal(c) || !isOctal(body[i+1]) || !isOctal(body[i+2]) || c > '3' {
			return "", errBadQuote
		}
		b.WriteByte((c-'0')<<6 | (body[i+1]-'0')<<3 | (body[i+2] - '0'))
		i += 2
	}
	return b.String(), nil
}

var errBadQuote = errors.New(`malformed quoted path (use C escapes: \" \\ \t \n \ooo)`)

func needsQuote(p string) bool {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			return true
		}
	}
	return !utf8.ValidString(p)
}

const cEscapes = "\a" + "a\b" + "b\t" + "t\n" + "n\v" + "v\f" + "f\r" + "r\"" + "\"\\\\"

// cEscape is the letter c is escaped with after a backslash; 0 for none.
func cEscape(c byte) byte {
	for i := 0; i < len(cEscapes); i += 2 {
		if cEscapes[i] == c {
			return cEscapes[i+1]
		}
	}
	return 0
}

// cUnescape is the byte an escape letter stands for; 0 for none.
func cUnescape(e byte) byte {
	for i := 0; i < len(cEscapes); i += 2 {
		if cEscapes[i+1] == e {
			return cEscapes[i]
		}
	}
	return 0
}

func writeOctal(b *strings.Builder, c byte) {
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// QuotePaths quotes each path.
func QuotePaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = QuotePath(p)
	}
	return out
}
