// Package gemini is Gemini CLI's side of `ckpt hook gemini` and `ckpt
// integrate gemini`. Gemini CLI's hooks (docs/hooks/reference.md and
// packages/core/src/hooks/types.ts in google-gemini/gemini-cli) send
// session_id, transcript_path, cwd, hook_event_name and timestamp, and
// per event: prompt (BeforeAgent, AfterAgent), tool_name and tool_input
// (BeforeTool, AfterTool; no call id), tool_response (AfterTool). Exit 0
// means stdout is JSON (or nothing); exit 1 is a warning Gemini CLI shows
// and goes past; exit 2, and any other code, blocks (the tool call, the
// turn, or retries the response).
package gemini
