package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
)

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
