package hooks

import (
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/payload"
)

// Format is what differs between the runtimes' hook payloads that share
// Claude Code's shape (hook_event_name, cwd, transcript_path, prompt,
// tool_name, tool_input).
type Format struct {
	// Events maps the runtime's event names onto the core's; any other
	// event is ignored.
	Events map[string]string
	// SessionKey names the session id field.
	SessionKey string
	// CallIDKey names the tool call id field; "" for a runtime that sends
	// none (the call id is then derived from the tool and its input).
	CallIDKey string
	// Command is the record of a tool call.
	Command func(tool string, input payload.Payload) string
}

// Parse reads a payload in the format: the event, the common fields and,
// for the events the core acts on, the session and the tool call. It
// also returns the payload, for the fields only one runtime has.
func (f Format) Parse(data []byte) (Event, payload.Payload, error) {
	p, err := payload.Decode(data)
	if err != nil {
		return Event{}, nil, err
	}
	native, err := p.Required("hook_event_name")
	if err != nil {
		return Event{}, nil, err
	}
	ev := Event{Native: native}
	ev.Cwd = p.String("cwd")
	ev.TranscriptPath = p.String("transcript_path")
	ev.Prompt = p.String("prompt")
	core, ok := f.Events[native]
	if !ok {
		return ev, p, nil
	}
	ev.Event = core
	if ev.SessionID, err = p.ID(f.SessionKey); err != nil {
		return Event{}, nil, err
	}
	if core != claudecode.EventPreToolUse && core != claudecode.EventPostToolUse {
		return ev, p, nil
	}
	if ev.ToolName, err = p.Required("tool_name"); err != nil {
		return Event{}, nil, err
	}
	if f.CallIDKey != "" {
		ev.ToolUseID = p.String(f.CallIDKey)
	}
	ev.CallID = payload.CallID(ev.ToolUseID, ev.ToolName, p["tool_input"])
	ev.Command = f.Command(ev.ToolName, p.Object("tool_input"))
	return ev, p, nil
}

// ContextOutput is the answer of a runtime that reads Claude Code's hook
// output (Codex, Gemini CLI): the drift since the agent's last turn as
// the prompt event's additionalContext, unstored changes as the tool
// end's, and at the turn's stop a systemMessage (shown to the person)
// with the command that undoes the turn; nil for nothing.
func ContextOutput(o Outcome) []byte {
	switch {
	case o.Started != nil && o.Event.Event == claudecode.EventUserPromptSubmit:
		return additionalContext(o.Event.Native, claudecode.DriftContext(*o.Started))
	case o.ToolEnd != nil && o.Event.Event == claudecode.EventPostToolUse:
		return additionalContext(o.Event.Native, claudecode.UncoveredContext(*o.ToolEnd))
	case o.Ended != nil && o.Event.Event == claudecode.EventStop && len(o.Ended.Files) > 0:
		return JSONLine(map[string]string{"systemMessage": UndoLine(o.Ended.SessionID, o.Ended.RunID)})
	}
	return nil
}

func additionalContext(event, text string) []byte {
	if text == "" {
		return nil
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return JSONLine(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{event, text}})
}
