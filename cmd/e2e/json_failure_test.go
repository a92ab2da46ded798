package e2e

import (
	"strings"
	"testing"
)

// TestJSONOneObjectOnFailure: a command that fails after it has its answer
// (exec of a program that cannot be started: the tool window was opened
// and closed) prints exactly one JSON object, which carries the error.
func TestJSONOneObjectOnFailure(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		r := ws.ckptResult("exec", "--json", "--session", "s", "--run", "r1", "--call", "c1", "--", "/nonexistent/program")
		var out struct {
			toolEndJSON
			Error string `json:"error"`
		}
		if err := decodeOne(r.stdout, &out); err != nil {
			t.Fatalf("exec --json of a program that cannot start: %v\n%s", err, r)
		}
		if r.code != 1 || out.ToolCallID != "c1" || !strings.Contains(out.Error, "/nonexistent/program") {
			t.Errorf("exec --json of a program that cannot start: want exit 1, tool_call_id c1 and an error naming the program:\n%s", r)
		}
		if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 {
			t.Errorf("exec of a program that cannot start: want one line on stderr:\n%s", r)
		}
	})
}
