package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeAPI is a scripted Anthropic Messages API on 127.0.0.1, enough for
// the real Claude Code CLI: POST /v1/messages, streamed (SSE) or not, and
// /v1/messages/count_tokens. Every answer comes from the script, decided by
// the request alone, so a retried request gets the same answer.
//
// A scripted conversation is named by a marker ("[[script:NAME]]") in one
// of its user messages: the prompt of a turn, or a subagent's task. Step k
// of NAME answers the request whose latest marked user message is followed
// by k assistant messages. Requests that carry no tools (titles, topic
// detection) and conversations with no marker get a short end_turn text.
type fakeAPI struct {
	t      *testing.T
	url    string
	script map[string][]apiReply

	mu       sync.Mutex
	requests []apiRequestLog
}

// apiReply is one assistant message: text, then tool calls. With no tool
// calls it ends the turn.
type apiReply struct {
	text  string
	tools []apiToolUse
	// status, when set, is an HTTP error the API answers with instead.
	status int
}

// apiToolUse is one tool_use block.
type apiToolUse struct {
	id    string
	name  string
	input map[string]any
}

// apiRequestLog is what the fake saw of one request.
type apiRequestLog struct {
	Path   string
	Model  string
	Stream bool
	Tools  []string // the tool names offered
	Script string   // the conversation's script, "" if none
	Step   int
	// Prompt is the marked user message, as sent (hook context included).
	Prompt string
}

type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type apiRequest struct {
	Model    string       `json:"model"`
	Stream   bool         `json:"stream"`
	Messages []apiMessage `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// newFakeAPI serves script until the test ends.
func newFakeAPI(t *testing.T, script map[string][]apiReply) *fakeAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAPI{t: t, url: "http://" + ln.Addr().String(), script: script}
	srv := &http.Server{Handler: http.HandlerFunc(f.serve)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeAPI) log() []apiRequestLog {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apiRequestLog(nil), f.requests...)
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	entry := apiRequestLog{Path: r.URL.Path}
	defer func() {
		f.mu.Lock()
		f.requests = append(f.requests, entry)
		f.mu.Unlock()
	}()
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 100}`)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
	default:
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`, http.StatusNotFound)
		return
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	entry.Model, entry.Stream = req.Model, req.Stream
	for _, tl := range req.Tools {
		entry.Tools = append(entry.Tools, tl.Name)
	}
	reply := apiReply{text: "ok"}
	if len(req.Tools) > 0 {
		entry.Script, entry.Step, entry.Prompt = f.position(req.Messages)
		if steps := f.script[entry.Script]; entry.Step < len(steps) {
			reply = steps[entry.Step]
		}
	}
	if reply.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.status)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"scripted failure"}}`)
		return
	}
	msgID := fmt.Sprintf("msg_%s_%d", entry.Script, entry.Step)
	if req.Stream {
		writeStream(w, req.Model, msgID, reply)
	} else {
		writeMessage(w, req.Model, msgID, reply)
	}
}

// position finds the conversation's script and step: the latest user
// message holding a marker, and the assistant messages after it.
func (f *fakeAPI) position(msgs []apiMessage) (string, int, string) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		name := marker(string(msgs[i].Content))
		if name == "" {
			continue
		}
		step := 0
		for _, m := range msgs[i+1:] {
			if m.Role == "assistant" {
				step++
			}
		}
		return name, step, string(msgs[i].Content)
	}
	return "", 0, ""
}

// marker is the NAME of the first "[[script:NAME]]" in s.
func marker(s string) string {
	_, rest, ok := strings.Cut(s, "[[script:")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "]]")
	if !ok {
		return ""
	}
	return name
}

func (r apiReply) blocks() []map[string]any {
	var out []map[string]any
	if r.text != "" {
		out = append(out, map[string]any{"type": "text", "text": r.text})
	}
	for _, tu := range r.tools {
		out = append(out, map[string]any{"type": "tool_use", "id": tu.id, "name": tu.name, "input": tu.input})
	}
	return out
}

func (r apiReply) stopReason() string {
	if len(r.tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

var apiUsage = map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

func writeMessage(w http.ResponseWriter, model, id string, r apiReply) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": r.blocks(), "stop_reason": r.stopReason(), "stop_sequence": nil, "usage": apiUsage,
	})
}

// writeStream answers as the streaming API does: message_start, each
// block's start, deltas and stop, message_delta, message_stop.
func writeStream(w http.ResponseWriter, model, id string, r apiReply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": apiUsage,
	}})
	for i, b := range r.blocks() {
		if b["type"] == "text" {
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		} else {
			input, _ := json.Marshal(b["input"])
			event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			// Split the input as the API does: several partial deltas.
			s := string(input)
			for len(s) > 0 {
				n := min(len(s), 40)
				event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": s[:n]}})
				s = s[n:]
			}
		}
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": r.stopReason(), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{})
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}
