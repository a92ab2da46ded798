// Package cursor is Cursor's side of `ckpt hook cursor` and `ckpt
// integrate cursor`. Cursor's agent hooks (cursor.com/docs/hooks) send
// hook_event_name, conversation_id, generation_id, workspace_roots and,
// per event: prompt (beforeSubmitPrompt), tool_name, tool_input,
// tool_use_id and cwd (preToolUse, postToolUse, postToolUseFailure),
// status (stop: "completed", "aborted" or "error"). Exit code 2 denies
// the action; any other failure is fail-open (the agent goes on).
// beforeSubmitPrompt cannot add context; postToolUse can
// (additional_context), so the drift waits for the turn's first tool
// call; stop's only answer, followup_message, would make the agent go
// on, so ckpt prints nothing there.
package cursor
