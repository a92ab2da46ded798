package claudecode

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Claude Code events ckpt acts on besides those in hook.go.
const (
	// EventStopFailure ends a turn that an API error cut short: no Stop
	// comes.
	EventStopFailure = "StopFailure"
	// EventSubagentStop is a subagent's end. When the main agent has
	// stopped already and this was its last background subagent still
	// running, the turn is over.
	EventSubagentStop = "SubagentStop"
	// EventInterrupt is not Claude Code's: ckpt plans it when the session's
	// transcript records that the person interrupted the turn (Esc), after
	// which Claude Code sends neither PostToolUse nor Stop.
	EventInterrupt = "ckpt:interrupt"
)

// backgroundTask is one entry of a Stop or SubagentStop payload's
// background_tasks: the session's in-flight background work. Claude Code
// 2.1.332 sends {"id", "type", "status", "description", "agent_type"},
// type "subagent" for a background Agent call (id is its agent_id) and
// "shell" for a background Bash command.
type backgroundTask struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	AgentType string `json:"agent_type"`
}

// runningSubagents are the agent ids of the background subagents that a
// payload's background_tasks lists as running or pending. Background shell
// commands and monitors do not hold a turn open: they may run for the
// rest of the session (a dev server), and what they write later is the
// person's drift, as HOOKS.md says.
func runningSubagents(m map[string]json.RawMessage) []string {
	var tasks []json.RawMessage
	if json.Unmarshal(m["background_tasks"], &tasks) != nil {
		return nil
	}
	var ids []string
	for _, raw := range tasks {
		var bt backgroundTask
		if json.Unmarshal(raw, &bt) != nil || bt.ID == "" {
			continue
		}
		subagent := bt.Type == "subagent" || bt.Type == "local_agent" || bt.AgentType != ""
		switch strings.ToLower(bt.Status) {
		case "running", "pending":
			if subagent {
				ids = append(ids, bt.ID)
			}
		}
	}
	return ids
}

// othersRunning reports whether a subagent other than self is running.
func othersRunning(running []string, self string) bool {
	for _, id := range running {
		if id != self {
			return true
		}
	}
	return false
}

// planStop is Stop's plan: end the open run, unless background subagents
// are still running, in which case the run stays open (waiting for them)
// and their tool calls, which carry agent_id, go to it.
func planStop(in HookInput, st HookState) []Action {
	if st.Run == "" {
		return nil
	}
	if len(in.RunningSubagents) > 0 {
		return []Action{{Kind: ActionRunWait, Session: in.SessionID, Run: st.Run}}
	}
	return []Action{{Kind: ActionRunEnd, Session: in.SessionID, Run: st.Run}}
}

// planSubagentStop ends a run that waits for its background subagents
// when the last of them stops. The stopping agent is still listed as
// running in its own SubagentStop. A subagent that stops while the main
// agent goes on (a foreground Agent call) ends nothing: the main agent's
// Stop will.
func planSubagentStop(in HookInput, st HookState) []Action {
	if st.Run == "" || !st.Waiting || othersRunning(in.RunningSubagents, in.AgentID) {
		return nil
	}
	return []Action{{Kind: ActionRunEnd, Session: in.SessionID, Run: st.Run}}
}

// hookMessage is a hook's answer that Claude Code shows the person, not
// the agent.
type hookMessage struct {
	SystemMessage string `json:"systemMessage"`
}

// UndoMessage is the stdout that shows the person, after a turn ended,
// the one command that undoes it.
func UndoMessage(session, run string) []byte {
	b, err := json.Marshal(hookMessage{SystemMessage: UndoLine(session, run)})
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// WaitMessage is the stdout of a Stop that leaves the run open for its
// background subagents: Claude Code shows the person a Stop hook's
// systemMessage, not a SubagentStop's, so the undo line comes now.
func WaitMessage(session, run string) []byte {
	b, err := json.Marshal(hookMessage{SystemMessage: "ckpt: this turn's run stays open until its background agents finish; " + undoCommand(session, run)})
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// UndoLine is "ckpt: to undo this turn: ckpt revert --session S --run R".
func UndoLine(session, run string) string {
	return "ckpt: " + undoCommand(session, run)
}

func undoCommand(session, run string) string {
	return fmt.Sprintf("to undo this turn: ckpt revert --session %s --run %s", contextID(session), contextID(run))
}
