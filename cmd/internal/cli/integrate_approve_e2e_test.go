package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIntegrateApprovesClaudeCodeMCP: Claude Code runs a project's
// .mcp.json server only once approved, and reads the approval from the
// person's .claude/settings.local.json, never from the shared
// .claude/settings.json. ckpt integrate claude-code --project approves
// ckpt's server there by name (beside the person's keys and approvals,
// with a backup, idempotently, never with enableAllProjectMcpServers);
// --uninstall withdraws only that; --user, whose servers need no approval,
// leaves the file alone; a malformed file is refused and left as it was.
func TestIntegrateApprovesClaudeCodeMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	bin := hookBuildCkpt(t)
	for _, existing := range []bool{true, false} {
		name := map[bool]string{true: "beside the person's settings", false: "no local settings yet"}[existing]
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			ws := replayWorkspace(t, tmp)
			env := append(hookEnv(tmp), "HOME="+filepath.Join(tmp, "home"))
			local := filepath.Join(ws, ".claude", "settings.local.json")
			orig := []byte("{\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]},\n  \"enabledMcpjsonServers\": [\"theirs\"]\n}\n")
			if existing {
				if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(local, orig, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"-C", ws, "integrate", "claude-code", "--project", "--json"}
			res := runIntegrate(t, bin, env, tmp, args...)
			approved := approvedServers(t, local)
			want := []string{"ckpt"}
			if existing {
				want = []string{"theirs", "ckpt"}
			}
			if !slices.Equal(approved, want) {
				t.Fatalf("enabledMcpjsonServers = %v, want %v", approved, want)
			}
			data, _ := os.ReadFile(local)
			if bytes.Contains(data, []byte("enableAllProjectMcpServers")) {
				t.Errorf("integrate approved every project server:\n%s", data)
			}
			if existing && !bytes.Contains(data, []byte(`"Bash(ls:*)"`)) {
				t.Errorf("the person's permissions are gone:\n%s", data)
			}
			shared, _ := os.ReadFile(filepath.Join(ws, ".claude", "settings.json"))
			if bytes.Contains(shared, []byte("McpServers")) {
				t.Errorf("the shared settings.json carries an MCP approval:\n%s", shared)
			}
			if !strings.Contains(resultFiles(res), local) {
				t.Errorf("integrate's answer does not name %s: %+v", local, res)
			}
			backups, _ := filepath.Glob(local + ".ckpt-backup-*")
			if existing != (len(backups) == 1) {
				t.Errorf("backups of %s: %v", local, backups)
			}

			runIntegrate(t, bin, env, tmp, args...)
			if again, _ := os.ReadFile(local); !bytes.Equal(again, data) {
				t.Errorf("second integrate changed %s:\n%s", local, again)
			}

			runIntegrate(t, bin, env, tmp, append(args, "--uninstall")...)
			if got := approvedServers(t, local); existing && !slices.Equal(got, []string{"theirs"}) || !existing && len(got) != 0 {
				t.Errorf("after --uninstall, enabledMcpjsonServers = %v", got)
			}
		})
	}

	t.Run("user scope needs no approval", func(t *testing.T) {
		tmp := t.TempDir()
		ws := replayWorkspace(t, tmp)
		env := append(hookEnv(tmp), "HOME="+filepath.Join(tmp, "home"))
		runIntegrate(t, bin, env, tmp, "-C", ws, "integrate", "claude-code", "--user", "--json")
		if _, err := os.Lstat(filepath.Join(ws, ".claude", "settings.local.json")); !os.IsNotExist(err) {
			t.Errorf("--user wrote the project's settings.local.json: %v", err)
		}
	})

	t.Run("malformed local settings", func(t *testing.T) {
		tmp := t.TempDir()
		ws := replayWorkspace(t, tmp)
		env := append(hookEnv(tmp), "HOME="+filepath.Join(tmp, "home"))
		local := filepath.Join(ws, ".claude", "settings.local.json")
		bad := []byte(`{"enabledMcpjsonServers": "ckpt, theirs"}`)
		if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(local, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		r := hookExec(t, bin, env, tmp, nil, "-C", ws, "integrate", "claude-code", "--project")
		now, _ := os.ReadFile(local)
		if r.code != 2 || !strings.Contains(r.stderr, local) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !bytes.Equal(now, bad) {
			t.Errorf("malformed settings.local.json: exit %d, stderr %q, unchanged %v", r.code, r.stderr, bytes.Equal(now, bad))
		}
		if _, err := os.Lstat(filepath.Join(ws, ".mcp.json")); !os.IsNotExist(err) {
			t.Errorf("a refused integrate wrote .mcp.json: %v", err)
		}
	})
}

func approvedServers(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Enabled []string `json:"enabledMcpjsonServers"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return v.Enabled
}

func resultFiles(r integrateJSON) string {
	b, _ := json.Marshal(r)
	return string(b)
}
