package install

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/pelletier/go-toml/v2"
)

// EnableFlag returns a TOML file's data with `key = true` in [table]
// (Codex's `[features] hooks = true`), editing only that line, or adding
// it under the table's header, or adding the table at the end: the
// person's comments and layout stay. changed is false, and out is data,
// when the key is true already. Data that is not TOML, or that the edit
// would not make say key = true (the table written inline, or as dotted
// keys), is a *MalformedError.
func EnableFlag(path string, data []byte, table, key string) (out []byte, changed bool, err error) {
	ok, err := flagSet(data, table, key)
	if err != nil {
		return nil, false, &MalformedError{Path: path, Reason: "not valid TOML (" + oneLine(err.Error()) + ")"}
	}
	if ok {
		return data, false, nil
	}
	out = setFlagText(data, table, key)
	if ok, err := flagSet(out, table, key); err != nil || !ok {
		return nil, false, &MalformedError{Path: path, Reason: fmt.Sprintf("cannot set %s.%s = true in it without rewriting it; set it by hand", table, key)}
	}
	return out, true, nil
}

// FlagSet reports whether a TOML file's data set [table] key = true.
func FlagSet(data []byte, table, key string) bool {
	ok, err := flagSet(data, table, key)
	return err == nil && ok
}

func flagSet(data []byte, table, key string) (bool, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return false, err
	}
	t, _ := doc[table].(map[string]any)
	v, _ := t[key].(bool)
	return v, nil
}

// setFlagText edits the text: the key's line in the table's section if
// there is one, else a new line after the table's header, else a new
// table at the end.
func setFlagText(data []byte, table, key string) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	header := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(table) + `\s*\]\s*(#.*)?$`)
	anyHeader := regexp.MustCompile(`^\s*\[`)
	keyLine := regexp.MustCompile(`^\s*("?)` + regexp.QuoteMeta(key) + `("?)\s*=`)
	line := []byte(key + " = true\n")
	for i, l := range lines {
		if !header.Match(bytes.TrimRight(l, "\r\n")) {
			continue
		}
		for j := i + 1; j < len(lines) && !anyHeader.Match(lines[j]); j++ {
			if keyLine.Match(lines[j]) {
				lines[j] = line
				return bytes.Join(lines, nil)
			}
		}
		rest := append([][]byte{line}, lines[i+1:]...)
		if !bytes.HasSuffix(l, []byte("\n")) {
			lines[i] = append(append([]byte(nil), l...), '\n')
		}
		return bytes.Join(append(lines[:i+1:i+1], rest...), nil)
	}
	var b bytes.Buffer
	b.Write(data)
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteByte('\n')
	}
	if len(bytes.TrimSpace(data)) > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[%s]\n%s", table, line)
	return b.Bytes()
}

func oneLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
