package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeIntegrateApprovesMCP: the real CLI runs a project's
// .mcp.json server only once the person approved it. After `ckpt integrate
// claude-code --project`, in a folder the person trusts (Claude Code's
// first-run trust dialog), `claude mcp list` finds ckpt's server approved
// and connects to it, instead of leaving it pending approval.
func TestClaudeCodeIntegrateApprovesMCP(t *testing.T) {
	claudeBinary(t)
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		c := newClaudeSession(t, ws, nil, false)
		root, err := filepath.EvalSymlinks(ws.root)
		if err != nil {
			t.Fatal(err)
		}
		trust, _ := json.Marshal(map[string]any{"projects": map[string]any{root: map[string]any{"hasTrustDialogAccepted": true}}})
		if err := os.WriteFile(filepath.Join(c.home, ".claude.json"), trust, 0o600); err != nil {
			t.Fatal(err)
		}
		if r := ws.ckptEnv([]string{"HOME=" + c.home}, "integrate", "claude-code", "--project"); r.code != 0 {
			t.Fatalf("integrate: %s", r)
		}
		cmd := exec.Command(c.bin, "mcp", "list")
		cmd.Dir, cmd.Env = ws.root, c.env()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude mcp list: %v\n%s", err, out)
		}
		var line string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "ckpt: ") {
				line = l
			}
		}
		if !strings.Contains(line, "Connected") {
			t.Fatalf("claude mcp list does not connect to ckpt's server:\n%s", out)
		}
	})
}
