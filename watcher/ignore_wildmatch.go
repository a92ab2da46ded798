package watcher

import "strings"

// This file is a port of git's wildmatch.c (the matcher behind gitignore
// patterns), kept close to the original so that it agrees with git on every
// corner: '*' and '?' never match '/' in pathname mode, "**" matches across
// directories only as a whole component, '\' escapes, and bracket expressions
// with ranges, '!'/'^' negation and [:class:] names. Patterns and paths are
// byte strings; git's ctype is ASCII-only and so is this.

const (
	wmMatch           = 0
	wmNoMatch         = 1
	wmAbortAll        = -1
	wmAbortToStarStar = -2
)

// wildmatch reports whether text matches the glob pattern. With pathname set
// (git's WM_PATHNAME), wildcards do not match '/' except through "**".
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

// at returns s[i], or 0 past the end: the C code reads NUL terminators, and
// neither patterns nor paths contain NUL.
func wmAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func dowild(pat, text string, pathname bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pch := pat[p]
		tch := wmAt(text, t)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '\\':
			// Literal match with the next byte; a trailing '\' matches nothing.
			p++
			if tch != wmAt(pat, p) {
				return wmNoMatch
			}
		default:
			if tch != pch {
				return wmNoMatch
			}
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
		case '*':
			r, np, nt, done := wmStar(pat, text, p, t, pathname)
			if done {
				return r
			}
			p, t = np, nt // "*/": text now at the slash; the loop consumes it
		case '[':
			r, np := wmBracket(pat, p, tch, pathname)
			if r != wmMatch {
				return r
			}
			p = np
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// star handles a '*' or "**" at pat[p]. It either decides the whole match
// (done) or, for a single '*' followed by '/', returns the positions of that
// slash in pat and text for the caller's loop to consume.
func wmStar(pat, text string, p, t int, pathname bool) (r, np, nt int, done bool) {
	var matchSlash bool
	p++
	if wmAt(pat, p) == '*' {
		prev := p - 2
		for p++; wmAt(pat, p) == '*'; p++ {
		}
		switch {
		case !pathname:
			matchSlash = true
		case (prev < 0 || pat[prev] == '/') &&
			(wmAt(pat, p) == 0 || wmAt(pat, p) == '/' || (wmAt(pat, p) == '\\' && wmAt(pat, p+1) == '/')):
			// "**/" may match nothing: try the rest against the text here.
			if wmAt(pat, p) == '/' && dowild(pat[p+1:], text[t:], pathname) == wmMatch {
				return wmMatch, 0, 0, true
			}
			matchSlash = true
		default:
			matchSlash = false
		}
	} else {
		matchSlash = !pathname
	}
	if p >= len(pat) {
		// Trailing "**" matches everything; trailing '*' only what has no '/'.
		if !matchSlash && strings.IndexByte(text[t:], '/') >= 0 {
			return wmNoMatch, 0, 0, true
		}
		return wmMatch, 0, 0, true
	}
	if !matchSlash && pat[p] == '/' {
		i := strings.IndexByte(text[t:], '/')
		if i < 0 {
			return wmNoMatch, 0, 0, true
		}
		return 0, p, t + i, false
	}
	tch := wmAt(text, t)
	for tch != 0 {
		// Skip quickly to the next occurrence of a literal that follows.
		if !wmSpecial(pat[p]) {
			pc := pat[p]
			for {
				tch = wmAt(text, t)
				if tch == 0 || (!matchSlash && tch == '/') || tch == pc {
					break
				}
				t++
			}
			if tch != pc {
				return wmNoMatch, 0, 0, true
			}
		}
		m := dowild(pat[p:], text[t:], pathname)
		if m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m, 0, 0, true
			}
		} else if !matchSlash && tch == '/' {
			return wmAbortToStarStar, 0, 0, true
		}
		t++
		tch = wmAt(text, t)
	}
	return wmAbortAll, 0, 0, true
}

// bracket matches the byte tch against the bracket expression that starts at
// pat[p] ('['). It returns wmMatch and the index of the closing ']', or the
// result that ends the whole match.
func wmBracket(pat string, p int, tch byte, pathname bool) (int, int) {
	p++
	pch := wmAt(pat, p)
	if pch == '^' {
		pch = '!'
	}
	negated := pch == '!'
	if negated {
		p++
		pch = wmAt(pat, p)
	}
	var prev byte
	matched := false
	for {
		if pch == 0 {
			return wmAbortAll, 0
		}
		switch {
		case pch == '\\':
			p++
			pch = wmAt(pat, p)
			if pch == 0 {
				return wmAbortAll, 0
			}
			if tch == pch {
				matched = true
			}
		case pch == '-' && prev != 0 && wmAt(pat, p+1) != 0 && wmAt(pat, p+1) != ']':
			p++
			pch = wmAt(pat, p)
			if pch == '\\' {
				p++
				pch = wmAt(pat, p)
				if pch == 0 {
					return wmAbortAll, 0
				}
			}
			if tch <= pch && tch >= prev {
				matched = true
			}
			pch = 0 // a range does not start another range
		case pch == '[' && wmAt(pat, p+1) == ':':
			var member, abort bool
			p, pch, member, abort = wmClassMember(pat, p, tch)
			if abort {
				return wmAbortAll, 0
			}
			if member {
				matched = true
			}
		case tch == pch:
			matched = true
		}
		prev = pch
		p++
		pch = wmAt(pat, p)
		if pch == ']' {
			break
		}
	}
	if matched == negated || (pathname && tch == '/') {
		return wmNoMatch, 0
	}
	return wmMatch, p
}

// wmClassMember matches tch against the "[:name:]" at pat[p] inside a
// bracket expression. It returns where the bracket loop goes on (p, pch),
// whether tch is a member, and abort for a malformed or unknown class. A
// "[:" with no ":]" is an ordinary '[' member.
func wmClassMember(pat string, p int, tch byte) (int, byte, bool, bool) {
	p += 2
	s := p
	pch := wmAt(pat, p)
	for ; pch != 0 && pch != ']'; pch = wmAt(pat, p) {
		p++
	}
	if pch == 0 {
		return p, 0, false, true
	}
	if n := p - s - 1; n >= 0 && pat[p-1] == ':' {
		ok, known := wmClass(pat[s:s+n], tch)
		return p, 0, ok, !known
	}
	return s - 2, '[', tch == '[', false
}

// wmClass reports whether c is in the named [:class:], with git's
// locale-independent ASCII ctype; known is false for an unknown name.
func wmClass(name string, c byte) (ok, known bool) {
	alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	printable := c >= 0x20 && c <= 0x7e
	switch name {
	case "alnum":
		return alpha || digit, true
	case "alpha":
		return alpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return printable && c != ' ', true
	case "lower":
		return c >= 'a' && c <= 'z', true
	case "print":
		return printable, true
	case "punct":
		return printable && c != ' ' && !alpha && !digit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return c >= 'A' && c <= 'Z', true
	case "xdigit":
		return digit || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F', true
	}
	return false, false
}

// wmSpecial is git's is_glob_special: the bytes that start a wildcard.
func wmSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}
