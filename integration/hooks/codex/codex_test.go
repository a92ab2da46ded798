package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
)

// TestParseFixtures: every documented payload parses to the core's event,
// with a session, and tool events with a tool, a call id and a command.
func TestParseFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	want := map[string]string{"UserPromptSubmit": claudecode.EventUserPromptSubmit, "PreToolUse": claudecode.EventPreToolUse, "PostToolUse": claudecode.EventPostToolUse, "Stop": claudecode.EventStop}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Adapter{}.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if want[ev.Native] != ev.Event || ev.SessionID == "" {
			t.Errorf("%s: native %q → event %q, session %q", f, ev.Native, ev.Event, ev.SessionID)
		}
		if ev.Event == claudecode.EventPreToolUse || ev.Event == claudecode.EventPostToolUse {
			if ev.ToolName == "" || !hooks.ValidID(ev.CallID) || ev.Command == "" {
				t.Errorf("%s: tool %q call %q command %q", f, ev.ToolName, ev.CallID, ev.Command)
			}
		}
	}
}

// FuzzParse: Parse never panics; what it accepts is usable by the core,
// and bad input is marked fault.Invalid; Output never panics.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte(`{"hook_event_name":"Stop","session_id":"\u0000"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := Adapter{}
		ev, err := a.Parse(data)
		if err != nil {
			if !errors.Is(err, fault.Invalid) {
				t.Fatalf("error not marked invalid: %v", err)
			}
			return
		}
		if ev.Event == "" {
			return
		}
		if !hooks.ValidID(ev.SessionID) {
			t.Fatalf("session %q accepted", ev.SessionID)
		}
		if ev.Event == claudecode.EventPreToolUse || ev.Event == claudecode.EventPostToolUse {
			if ev.ToolName == "" || !hooks.ValidID(ev.CallID) || len(ev.Command) > hooks.MaxCommandLen || !utf8.ValidString(ev.Command) && utf8.ValidString(string(data)) {
				t.Fatalf("tool %q call %q command %q", ev.ToolName, ev.CallID, ev.Command)
			}
		}
		rs := api.RunStart{SessionID: ev.SessionID, RunID: "turn-1", WorkspaceDrifted: true, Drift: []api.Change{{Path: ev.Command, Kind: "modified"}}}
		te := api.ToolEnd{UncoveredPaths: []string{ev.ToolName}}
		re := api.RunEnd{SessionID: ev.SessionID, RunID: "turn-1", Files: []api.Change{{Path: "a"}}}
		for _, out := range [][]byte{a.Output(hooks.Outcome{Event: ev, Started: &rs}), a.Output(hooks.Outcome{Event: ev, ToolEnd: &te}), a.Output(hooks.Outcome{Event: ev, Ended: &re})} {
			if out != nil && !json.Valid(out) {
				t.Fatalf("output %q is not JSON", out)
			}
		}
	})
}

// TestParseRecorded: the payloads the real CLI sent parse, each to the
// event ckpt expects.
func TestParseRecorded(t *testing.T) {
	files, _ := filepath.Glob("testdata/recorded-*.jsonl")
	if len(files) == 0 {
		t.Fatal("no recorded payloads")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			ev, err := Adapter{}.Parse(line)
			if err != nil {
				t.Fatalf("%s: %v\n%s", f, err, line)
			}
			events = append(events, ev.Event)
			if ev.Event == claudecode.EventPreToolUse && (ev.CallID == "" || ev.Command == "") {
				t.Errorf("%s: tool event without call or command: %+v", f, ev)
			}
		}
		want := []string{"", claudecode.EventUserPromptSubmit, claudecode.EventPreToolUse, claudecode.EventPostToolUse, claudecode.EventStop}
		if strings.Contains(f, "gemini") {
			want = append(want, claudecode.EventSessionEnd)
		}
		if strings.Join(events, ",") != strings.Join(want, ",") {
			t.Errorf("%s: events %v, want %v", f, events, want)
		}
	}
}
