package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ckptdev/ckpt/fault"
)

// Limits on what ckpt takes from a payload.
const (
	maxIDLen = 256 // session and tool call ids
	// MaxCommandLen bounds the command recorded on a tool window.
	MaxCommandLen = 2000
)

// Payload is a hook's JSON object, read leniently: unknown fields are
// ignored, and an optional field of the wrong type counts as absent, so a
// newer runtime does not turn into errors.
type Payload map[string]json.RawMessage

// Decode parses a payload that must be a JSON object.
func Decode(data []byte) (Payload, error) {
	var p Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, Bad("not a JSON object: %v", err)
	}
	if p == nil {
		return nil, Bad("not a JSON object: null")
	}
	return p, nil
}

// Bad is bad hook input, marked fault.Invalid.
func Bad(format string, args ...any) error {
	return fault.Invalidf("bad hook input: "+format, args...)
}

// String is an optional string field ("" when absent or not a string).
func (p Payload) String(key string) string {
	var s string
	if b, ok := p[key]; ok {
		json.Unmarshal(b, &s)
	}
	return s
}

// Strings is an optional array of strings (nil when absent or another
// type).
func (p Payload) Strings(key string) []string {
	var s []string
	if b, ok := p[key]; ok {
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
	}
	return s
}

// Required is a string field that must be there and not empty.
func (p Payload) Required(key string) (string, error) {
	b, ok := p[key]
	if !ok || string(b) == "null" {
		return "", Bad("no %s", key)
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", Bad("%s is not a string", key)
	}
	if s == "" {
		return "", Bad("%s is empty", key)
	}
	return s, nil
}

// ID is a required id field that must be usable as a session id.
func (p Payload) ID(key string) (string, error) {
	s, err := p.Required(key)
	if err != nil {
		return "", err
	}
	if !ValidID(s) {
		return "", Bad("%s %q is not a usable id (control characters, or longer than %d bytes)", key, s, maxIDLen)
	}
	return s, nil
}

// Object is an optional object field (nil when absent or not an object).
func (p Payload) Object(key string) Payload {
	var o Payload
	if b, ok := p[key]; ok {
		if json.Unmarshal(b, &o) != nil {
			return nil
		}
	}
	return o
}

// ValidID reports whether s can name a session or a tool call: non-empty,
// valid UTF-8, bounded, without control characters.
func ValidID(s string) bool {
	if s == "" || len(s) > maxIDLen || !utf8.ValidString(s) {
		return false
	}
	return strings.IndexFunc(s, unicode.IsControl) < 0
}

// CallID is id when it is usable, else a name derived from the tool name
// and its canonical input: the same before and after the call, for a
// runtime that sends no call id.
func CallID(id, tool string, input json.RawMessage) string {
	if ValidID(id) {
		return id
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	var v any
	if err := json.Unmarshal(input, &v); err == nil {
		if canon, err := json.Marshal(v); err == nil { // map keys sorted
			input = canon
		}
	}
	h.Write(bytes.TrimSpace(input))
	return "call-" + hex.EncodeToString(h.Sum(nil))[:24]
}

// Truncate cuts s to at most n bytes, on a rune boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = "…"
	cut := n - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}

// ToolCommand is the record of a tool call: the shell command when the
// tool is a shell (shellKey names its field), else the tool name and the
// first of pathKeys the input has, else the tool name.
func ToolCommand(tool string, input Payload, shell bool, shellKey string, pathKeys ...string) string {
	if shell {
		if c := input.String(shellKey); c != "" {
			return Truncate(c, MaxCommandLen)
		}
	}
	for _, key := range pathKeys {
		if p := input.String(key); p != "" {
			return Truncate(tool+" "+p, MaxCommandLen)
		}
	}
	return Truncate(tool, MaxCommandLen)
}

// UndoLine is the one line that tells how to undo a run.
func UndoLine(session, run string) string {
	return "ckpt: undo this turn with: ckpt revert --session " + shellQuote(session) + " --run " + shellQuote(run)
}

func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// JSONLine is v as one line of JSON and a newline; nil if it cannot be
// encoded.
func JSONLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return b.Bytes()
}
