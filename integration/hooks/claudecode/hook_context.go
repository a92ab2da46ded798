package claudecode

import (
	"strings"

	"github.com/ckptdev/ckpt/integration/agenttext"
	"github.com/ckptdev/ckpt/integration/api"
)

// What goes into an agent's context from a workspace (file names) is
// untrusted text, written the one way ckpt writes it for agents
// (agenttext): Go-quoted, cut, fenced and announced as data, capped.
const (
	maxContextPath = agenttext.MaxPath
	maxContextID   = agenttext.MaxID

	pathsOpen  = agenttext.Open
	pathsClose = agenttext.Close
)

// writePaths lists changes, at most maxListed of them; hint says where to
// see the rest.
func writePaths(b *strings.Builder, changes []api.Change, hint string) {
	agenttext.WriteList(b, agenttext.Changes(changes), hint)
}

// contextID is a session, run or checkpoint id as an agent is shown it.
func contextID(id string) string { return agenttext.ID(id) }
