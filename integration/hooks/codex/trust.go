package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"github.com/ckptdev/ckpt/integration/hooks/install"
)

// Trust is Codex's record that the person reviewed one hook handler:
// config.toml's [hooks.state."KEY"] trusted_hash = HASH. Codex runs a
// hook from hooks.json only once it is trusted (else it asks "hooks need
// review" and skips it), and the trust holds while the handler's event,
// matcher, command and timeout stay the same.
type Trust struct {
	// Key is "<hooks.json path>:<event in snake case>:<group>:<handler>".
	Key string
	// Hash is "sha256:" and the hex SHA-256 of the handler's identity:
	// the compact JSON, keys sorted, of {"event_name", "matcher" (when
	// set), "hooks": [{"async", "command", "timeout", "type"}]}, with
	// Codex's defaults (async false, timeout 600) filled in.
	Hash string
}

// Trusts are the trust records of ckpt's handlers in a hooks.json, whose
// path Codex knows it by is hooksFile; self is the running ckpt binary.
func Trusts(hooksFile string, data []byte, self string) []Trust {
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string          `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []Trust
	for _, h := range Install.Hooks {
		for gi, g := range doc.Hooks[h.Event] {
			for hi, handler := range g.Hooks {
				cmd, _ := handler["command"].(string)
				if !install.IsCkptCommand(cmd, Install.Runtime, self) {
					continue
				}
				event := snake(h.Event)
				out = append(out, Trust{
					Key:  hooksFile + ":" + event + ":" + strconv.Itoa(gi) + ":" + strconv.Itoa(hi),
					Hash: trustHash(event, g.Matcher, handler),
				})
			}
		}
	}
	return out
}

func trustHash(event string, matcher *string, handler map[string]any) string {
	norm := map[string]any{"type": "command", "command": handler["command"], "async": false, "timeout": json.Number("600")}
	if v, ok := handler["async"].(bool); ok {
		norm["async"] = v
	}
	if v, ok := handler["timeout"].(float64); ok {
		norm["timeout"] = json.Number(strconv.FormatFloat(v, 'f', -1, 64))
	}
	if v, ok := handler["statusMessage"].(string); ok {
		norm["statusMessage"] = v
	}
	identity := map[string]any{"event_name": event, "hooks": []any{norm}}
	if matcher != nil {
		identity["matcher"] = *matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(identity) // maps encode with sorted keys
	sum := sha256.Sum256(bytes.TrimRight(b.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// snake is Codex's config name of an event: PreToolUse is pre_tool_use.
func snake(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
