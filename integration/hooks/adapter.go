package hooks

import (
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
)

// Event is one hook payload in the core's terms: Event is one of
// claudecode.EventUserPromptSubmit, EventPreToolUse, EventPostToolUse,
// EventStop, EventSessionEnd (anything else is ignored), SessionID and,
// for tool events, ToolName, CallID and Command are set.
type Event struct {
	claudecode.HookInput
	// Native is the runtime's own event name, for its answer.
	Native string
	// ProjectDir is the project the runtime says it works in, when it
	// says (Cursor's workspace_roots, $GEMINI_PROJECT_DIR): the
	// workspace when no known workspace is nearer the hook's cwd.
	ProjectDir string
}

// Outcome is what the engine answered while handling one event: the run
// it started, the tool window it closed, the run it ended (each nil when
// the event did not do that).
type Outcome struct {
	Event   Event
	Started *api.RunStart
	ToolEnd *api.ToolEnd
	Ended   *api.RunEnd
	// Pending is, for a DriftDeferrer, the drift told at the turn's start
	// that the agent has not been told yet.
	Pending string
}

// DriftDeferrer is an Adapter whose runtime takes no added context at
// the prompt (Cursor): the command keeps the turn's drift note and hands
// it, as Outcome.Pending, to the first tool call's end, where the runtime
// takes context.
type DriftDeferrer interface {
	DefersDrift() bool
}

// Adapter is one runtime's side of `ckpt hook RUNTIME`.
type Adapter interface {
	// Runtime is the name in `ckpt hook RUNTIME`.
	Runtime() string
	// Parse reads a payload. Bad input (not a JSON object, no event
	// name, no usable session or tool name where the core needs them) is
	// an error marked fault.Invalid.
	Parse(data []byte) (Event, error)
	// Windowed reports whether calls of the tool get a tool window: not
	// the runtime's read-only tools.
	Windowed(tool string) bool
	// Output is what to print on stdout for the runtime, nil for
	// nothing.
	Output(o Outcome) []byte
}

// Relevant reports whether the event can lead to any engine call: when
// it is false the command need not open the store.
func Relevant(a Adapter, ev Event) bool {
	switch ev.Event {
	case claudecode.EventUserPromptSubmit, claudecode.EventStop, claudecode.EventSessionEnd:
		return true
	case claudecode.EventPreToolUse, claudecode.EventPostToolUse:
		return a.Windowed(ev.ToolName) && claudecode.Relevant(ev.HookInput)
	}
	return false
}
