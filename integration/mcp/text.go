package mcp

import (
	"strings"

	"github.com/ckptdev/ckpt/integration/agenttext"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/hooks/payload"
)

// File names are untrusted text, written the one way ckpt writes it for
// agents (agenttext): Go-quoted, cut, fenced and announced as data, at most
// maxListed of them; the whole text is cut to maxText bytes. The
// structured content carries every path in full (api.QuotePath form).
const (
	maxListed = agenttext.MaxListed
	maxText   = 8000

	pathsOpen = agenttext.Open
)

// listed is one line of a fenced list: a kind (or other label) and a path.
type listed = agenttext.Item

// writeList writes items as a fenced list of quoted paths.
func writeList(b *strings.Builder, items []listed) {
	agenttext.WriteList(b, items, "all are in the structured result")
}

func changeItems(cs []api.Change) []listed { return agenttext.Changes(cs) }

// textPath, textLabel and textID are a path, a label and an id as the
// agent reads them.
func textPath(p string) string  { return agenttext.Path(p) }
func textLabel(k string) string { return agenttext.Label(k) }
func textID(id string) string   { return agenttext.ID(id) }

// capText cuts the whole text to maxText bytes.
func capText(s string) string {
	if len(s) <= maxText {
		return s
	}
	return payload.Truncate(s, maxText) + "\n(cut; the structured result holds everything)\n"
}
