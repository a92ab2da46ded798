package watcher

import (
	"bytes"
	"io/fs"
	"strings"
)

// Pattern flags, as in git's dir.c.
const (
	patNegative  = 1 << iota // "!pattern": re-include
	patMustBeDir             // "pattern/": directories only
	patNoDir                 // no '/' but a trailing one: match the base name anywhere below
	patEndsWith              // "*literal": a suffix test is enough
)

// ignPattern is one line of an ignore file, parsed like git's parse_path_pattern.
type ignPattern struct {
	pat    string // without '!' and without the trailing '/'
	nowild int    // length of the literal prefix of pat (before any wildcard)
	flags  uint8
}

// ruleList is the patterns of one ignore level: a directory's .gitignore and
// .ckptignore (the latter after the former, so it wins: the last match in a
// list decides), .git/info/exclude, or the configured extra patterns.
type ruleList struct {
	base  string // directory of the list, with a trailing '/'; "" for the root
	pats  []ignPattern
	files [2]fs.FileInfo // the .gitignore and .ckptignore read (nil: absent)
}

// noRules stands for a directory without ignore files.
var noRules = &ruleList{}

// parseIgnoreLines appends the patterns in an ignore file's content to pats, as
// git's add_patterns_from_buffer does: a UTF-8 BOM is skipped, lines that are
// empty or start with '#' are skipped, a trailing CR is dropped, and trailing
// spaces are trimmed unless escaped with '\'.
func parseIgnoreLines(pats []ignPattern, data []byte) []ignPattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i] // git reads the line as a C string
		}
		pats = append(pats, parseIgnorePattern(ignTrimSpaces(string(line))))
	}
	return pats
}

// ignTrimSpaces drops unescaped trailing spaces (not tabs), as git does.
func ignTrimSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// parseIgnorePattern is git's parse_path_pattern.
func parseIgnorePattern(s string) ignPattern {
	var p ignPattern
	if strings.HasPrefix(s, "!") {
		p.flags |= patNegative
		s = s[1:]
	}
	n := len(s)
	if n > 0 && s[n-1] == '/' {
		n--
		p.flags |= patMustBeDir
	}
	if strings.IndexByte(s[:n], '/') < 0 {
		p.flags |= patNoDir
	}
	p.nowild = min(ignSimpleLength(s), n)
	if len(s) > 0 && s[0] == '*' && ignSimpleLength(s[1:]) == len(s)-1 {
		p.flags |= patEndsWith
	}
	p.pat = s[:n]
	return p
}

// ignSimpleLength is the length of s's prefix without wildcard bytes.
func ignSimpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if wmSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// match reports whether a pattern of the list matches path (whose base name
// is name) and, if one does, whether the last such pattern is a negation.
func (l *ruleList) match(path, name string, isDir bool) (matched, negated bool) {
	for i := len(l.pats) - 1; i >= 0; i-- {
		p := &l.pats[i]
		if p.flags&patMustBeDir != 0 && !isDir {
			continue
		}
		var ok bool
		if p.flags&patNoDir != 0 {
			ok = p.matchBasename(name)
		} else {
			ok = p.matchPathname(path, l.base)
		}
		if ok {
			return true, p.flags&patNegative != 0
		}
	}
	return false, false
}

// matchBasename is git's match_basename.
func (p *ignPattern) matchBasename(name string) bool {
	switch {
	case p.nowild == len(p.pat):
		return name == p.pat
	case p.flags&patEndsWith != 0:
		return strings.HasSuffix(name, p.pat[1:])
	}
	return wildmatch(p.pat, name, false)
}

// matchPathname is git's match_pathname: the pattern is relative to base.
// Like git, it compares the literal prefix first and runs the wildcard
// matcher on the rest only, which matters for "**" right after the prefix.
func (p *ignPattern) matchPathname(path, base string) bool {
	pat, prefix := p.pat, p.nowild
	if strings.HasPrefix(pat, "/") {
		pat = pat[1:]
		prefix--
	}
	if !strings.HasPrefix(path, base) || path == "" {
		return false
	}
	name := path[len(base):]
	if prefix > 0 {
		if prefix > len(name) || name[:prefix] != pat[:prefix] {
			return false
		}
		pat, name = pat[prefix:], name[prefix:]
		if pat == "" && name == "" {
			return true
		}
	}
	return wildmatch(pat, name, true)
}
