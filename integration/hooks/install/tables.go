package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Subtable is one [PARENT."NAME"] table of a TOML file with a string key
// in it (Codex's [hooks.state."KEY"] trusted_hash = "HASH").
type Subtable struct {
	Name, Value string
}

// SetSubtables returns the TOML data with key = Value in each
// [parent."Name"] table: the key's line replaced, or added under the
// table's header, or the table added at the end. Nothing else in the
// text changes. changed is false, and out is data, when every value is
// there already. Data the edit cannot make say so is a *MalformedError.
func SetSubtables(path string, data []byte, parent, key string, tables []Subtable) (out []byte, changed bool, err error) {
	if _, err := parseTOML(data); err != nil {
		return nil, false, &MalformedError{Path: path, Reason: "not valid TOML (" + oneLine(err.Error()) + ")"}
	}
	out = data
	for _, t := range tables {
		out = setSubtable(out, tableHeader(parent, t.Name), key, t.Value)
	}
	doc, err := parseTOML(out)
	if err == nil {
		for _, t := range tables {
			if v, _ := lookup(doc, append(strings.Split(parent, "."), t.Name, key)...).(string); v != t.Value {
				err = fmt.Errorf("%s not set", key)
			}
		}
	}
	if err != nil {
		return nil, false, &MalformedError{Path: path, Reason: fmt.Sprintf("cannot set %s in its [%s] tables without rewriting it; set them by hand", key, parent)}
	}
	if bytes.Equal(out, data) {
		return data, false, nil
	}
	return out, true, nil
}

// RemoveSubtables returns the TOML data without the [parent."name"]
// tables (each from its header to the next header). changed is false,
// and out is data, when there were none.
func RemoveSubtables(path string, data []byte, parent string, names []string) (out []byte, changed bool, err error) {
	if _, err := parseTOML(data); err != nil {
		return nil, false, &MalformedError{Path: path, Reason: "not valid TOML (" + oneLine(err.Error()) + ")"}
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for _, name := range names {
		i := findHeader(lines, tableHeader(parent, name))
		if i < 0 {
			continue
		}
		j := i + 1
		for j < len(lines) && !isHeader(lines[j]) {
			j++
		}
		if i > 0 && len(bytes.TrimSpace(lines[i-1])) == 0 {
			i--
		}
		lines = append(lines[:i:i], lines[j:]...)
	}
	out = bytes.Join(lines, nil)
	if bytes.Equal(out, data) {
		return data, false, nil
	}
	if _, err := parseTOML(out); err != nil {
		return nil, false, &MalformedError{Path: path, Reason: fmt.Sprintf("cannot remove its [%s] tables without rewriting it; remove them by hand", parent)}
	}
	return out, true, nil
}

func parseTOML(data []byte) (map[string]any, error) {
	var doc map[string]any
	err := toml.Unmarshal(data, &doc)
	return doc, err
}

func lookup(doc map[string]any, path ...string) any {
	var v any = doc
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func tableHeader(parent, name string) string { return "[" + parent + "." + tomlString(name) + "]" }

// tomlString is s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimRight(b.String(), "\n")
}

func isHeader(line []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) }

func findHeader(lines [][]byte, header string) int {
	for i, l := range lines {
		if string(bytes.TrimSpace(l)) == header {
			return i
		}
	}
	return -1
}

func setSubtable(data []byte, header, key, value string) []byte {
	line := []byte(key + " = " + tomlString(value) + "\n")
	lines := bytes.SplitAfter(data, []byte("\n"))
	if i := findHeader(lines, header); i >= 0 {
		for j := i + 1; j < len(lines) && !isHeader(lines[j]); j++ {
			if k, _, ok := strings.Cut(string(lines[j]), "="); ok && strings.TrimSpace(k) == key {
				lines[j] = line
				return bytes.Join(lines, nil)
			}
		}
		if !bytes.HasSuffix(lines[i], []byte("\n")) {
			lines[i] = append(append([]byte(nil), lines[i]...), '\n')
		}
		rest := append([][]byte{line}, lines[i+1:]...)
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
	b.WriteString(header + "\n")
	b.Write(line)
	return b.Bytes()
}
