package claudecode

import (
	"encoding/json"
	"os"
	"testing"
)

// TestInstallMatchesExample: `ckpt integrate claude-code` registers what
// the documented example settings (integration/claude-code-settings.json)
// do.
func TestInstallMatchesExample(t *testing.T) {
	data, err := os.ReadFile("../../claude-code-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Hooks) != len(Install.Hooks) {
		t.Errorf("example has %d events, Install %d", len(doc.Hooks), len(Install.Hooks))
	}
	for _, h := range Install.Hooks {
		groups := doc.Hooks[h.Event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Matcher != h.Matcher || groups[0].Hooks[0].Timeout != h.Timeout {
			t.Errorf("%s: example %+v, Install %+v", h.Event, groups, h)
		}
	}
}
