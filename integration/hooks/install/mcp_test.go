package install

import (
	"errors"
	"strings"
	"testing"

	"github.com/ckptdev/ckpt/fault"
)

var (
	jsonMCP = MCPServer{ProjectFile: ".mcp.json", UserFile: ".claude.json", Format: "json"}
	tomlMCP = MCPServer{ProjectFile: ".codex/config.toml", UserFile: ".codex/config.toml", Format: "toml"}
)

func TestMCPMergeJSONKeepsTheirs(t *testing.T) {
	in := []byte(`{"a": 1, "mcpServers": {"other": {"command": "npx"}, "ckpt": {"command": "/old/ckpt", "args": ["x"], "env": {"K": "v"}}}}`)
	out, changed, err := jsonMCP.Merge("f", in, "/usr/bin/ckpt")
	if err != nil || !changed {
		t.Fatalf("merge: %v %v", changed, err)
	}
	for _, want := range []string{`"a": 1`, `"other"`, `"command": "/usr/bin/ckpt"`, `"args": [`, `"mcp"`, `"K": "v"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("merged file lacks %s:\n%s", want, out)
		}
	}
	if again, changed, _ := jsonMCP.Merge("f", out, "/usr/bin/ckpt"); changed || string(again) != string(out) {
		t.Errorf("second merge changed it:\n%s", again)
	}
	if !jsonMCP.Installed(out, "") {
		t.Error("not installed after merge")
	}
	removed, changed, err := jsonMCP.Remove("f", out, "")
	if err != nil || !changed || strings.Contains(string(removed), "ckpt") || !strings.Contains(string(removed), `"other"`) {
		t.Fatalf("remove: %v %v\n%s", changed, err, removed)
	}
}

func TestMCPRemoveLeavesOthersNamedCkpt(t *testing.T) {
	in := []byte(`{"mcpServers": {"ckpt": {"command": "npx", "args": ["some-other-ckpt"]}}}`)
	if out, changed, err := jsonMCP.Remove("f", in, "/usr/bin/ckpt"); err != nil || changed || string(out) != string(in) {
		t.Fatalf("removed a server that does not run ckpt: %v %v %s", changed, err, out)
	}
}

func TestMCPMalformed(t *testing.T) {
	for _, c := range []struct {
		m    MCPServer
		data string
	}{
		{jsonMCP, `{"mcpServers": []}`},
		{jsonMCP, `[1]`},
		{jsonMCP, `{"mcpServers": {`},
		{tomlMCP, "[mcp_servers\n"},
	} {
		if _, _, err := c.m.Merge("f", []byte(c.data), "/usr/bin/ckpt"); !errors.Is(err, fault.Invalid) {
			t.Errorf("merge of %q: %v, want a refusal", c.data, err)
		}
	}
}

func TestMCPTOML(t *testing.T) {
	in := "# mine\nmodel = \"o3\"\n\n[mcp_servers.ckpt]\ncommand = \"/old/ckpt\"\n\n[mcp_servers.ckpt.env]\nK = \"v\"\n\n[mcp_servers.other]\ncommand = \"npx\"\n"
	out, changed, err := tomlMCP.Merge("f", []byte(in), "/usr/bin/ckpt")
	if err != nil || !changed {
		t.Fatalf("merge: %v %v", changed, err)
	}
	if !strings.HasPrefix(string(out), "# mine\nmodel = \"o3\"\n") || !strings.Contains(string(out), "[mcp_servers.other]") ||
		!strings.Contains(string(out), "[mcp_servers.\"ckpt\"]\ncommand = \"/usr/bin/ckpt\"\nargs = [\"mcp\"]\n") || strings.Contains(string(out), "/old/ckpt") {
		t.Fatalf("merged:\n%s", out)
	}
	if again, changed, _ := tomlMCP.Merge("f", out, "/usr/bin/ckpt"); changed || string(again) != string(out) {
		t.Errorf("second merge changed it:\n%s", again)
	}
	removed, changed, err := tomlMCP.Remove("f", out, "")
	if err != nil || !changed || strings.Contains(string(removed), "ckpt") || !strings.Contains(string(removed), "[mcp_servers.other]") {
		t.Fatalf("remove: %v %v\n%s", changed, err, removed)
	}
}
