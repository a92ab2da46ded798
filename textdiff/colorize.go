package textdiff

import (
	"strconv"
	"strings"
)

// Colorize adds ANSI colors to a unified diff for terminals: headers bold, hunk lines cyan, '-' red, '+' green.
//
// Lines are classified by following the hunk headers' line counts, so a
// removed line reading "-- x" is colored as a removal rather than taken for a
// "--- " file header. Context lines and "\ No newline at end of file" markers
// are left uncolored.
func Colorize(patch string) string {
	const (
		bold  = "\x1b[1m"
		cyan  = "\x1b[36m"
		red   = "\x1b[31m"
		green = "\x1b[32m"
		reset = "\x1b[0m"
	)
	if patch == "" {
		return ""
	}
	var sb strings.Builder
	sb.Grow(len(patch) + len(patch)/4)
	// oldLeft/newLeft count the lines still expected in the current hunk;
	// lenient is set when a hunk header could not be parsed, in which case
	// lines are classified by their first byte until the next header.
	oldLeft, newLeft := 0, 0
	lenient := false
	for rest := patch; rest != ""; {
		line, nl := rest, ""
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, nl = rest[:i], "\n"
			rest = rest[i+1:]
		} else {
			rest = ""
		}
		color := ""
		inHunk := oldLeft > 0 || newLeft > 0 || lenient
		switch {
		case inHunk && line != "" && line[0] == '-' && !(lenient && strings.HasPrefix(line, "--- ")):
			color = red
			oldLeft--
		case inHunk && line != "" && line[0] == '+' && !(lenient && strings.HasPrefix(line, "+++ ")):
			color = green
			newLeft--
		case inHunk && (line == "" || line[0] == ' '):
			oldLeft--
			newLeft--
		case strings.HasPrefix(line, "\\"):
			// "\ No newline at end of file": leave plain.
		case strings.HasPrefix(line, "@@"):
			color = cyan
			var ok bool
			oldLeft, newLeft, ok = parseHunkHeader(line)
			lenient = !ok
		default:
			color = bold
			lenient = false
			oldLeft, newLeft = 0, 0
		}
		if color != "" && line != "" {
			sb.WriteString(color)
			sb.WriteString(line)
			sb.WriteString(reset)
		} else {
			sb.WriteString(line)
		}
		sb.WriteString(nl)
	}
	return sb.String()
}

// parseHunkHeader parses "@@ -l[,s] +l[,s] @@..." and returns the two
// line counts.
func parseHunkHeader(line string) (oldN, newN int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	count := func(r string) (int, bool) {
		_, n, found := strings.Cut(r[1:], ",")
		if !found {
			return 1, true
		}
		v, err := strconv.Atoi(n)
		return v, err == nil && v >= 0
	}
	oldN, ok1 := count(f[1])
	newN, ok2 := count(f[2])
	return oldN, newN, ok1 && ok2
}
