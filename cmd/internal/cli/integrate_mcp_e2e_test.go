package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pelletier/go-toml/v2"
)

// theirMCP is an MCP file a person already has: another server, and (for
// the files that hold more) other keys.
func theirMCP(format string) string {
	if format == "toml" {
		return "# mine\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [\"other-server\"]\n"
	}
	return `{"theme": "GitHub", "mcpServers": {"other": {"command": "npx", "args": ["other-server"], "env": {"K": "v"}}}}` + "\n"
}

// registeredServer is the command and args the MCP file registers as ckpt.
func registeredServer(t *testing.T, format string, data []byte) (string, []string) {
	t.Helper()
	var doc map[string]any
	var err error
	key := "mcpServers"
	if format == "toml" {
		err, key = toml.Unmarshal(data, &doc), "mcp_servers"
	} else {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatalf("MCP file: %v\n%s", err, data)
	}
	servers, _ := doc[key].(map[string]any)
	if _, ok := servers["other"]; !ok {
		t.Errorf("their server is gone:\n%s", data)
	}
	ckpt, _ := servers["ckpt"].(map[string]any)
	command, _ := ckpt["command"].(string)
	var args []string
	list, _ := ckpt["args"].([]any)
	for _, a := range list {
		s, _ := a.(string)
		args = append(args, s)
	}
	return command, args
}

func parsedEqual(t *testing.T, format string, a, b []byte) bool {
	t.Helper()
	if format == "toml" {
		var xm, ym map[string]any
		if toml.Unmarshal(a, &xm) != nil || toml.Unmarshal(b, &ym) != nil {
			return false
		}
		delete(xm, "features") // Codex's hooks flag stays after --uninstall
		return reflect.DeepEqual(xm, ym)
	}
	return reflect.DeepEqual(decodeJSON(t, a), decodeJSON(t, b))
}

// TestIntegrateRegistersMCP: ckpt integrate registers `ckpt mcp` (by the
// binary's absolute path) in each runtime's MCP file beside the person's
// servers, with a backup, idempotently; the registered command serves
// ckpt's tools from the workspace; --uninstall takes out only ckpt's
// server; a malformed MCP file is refused and left as it was.
func TestIntegrateRegistersMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	bin := hookBuildCkpt(t)
	self, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range agentRuntimes {
		for _, user := range []bool{false, true} {
			scope := "project"
			if user {
				scope = "user"
			}
			t.Run(r.spec.Runtime+"/"+scope, func(t *testing.T) { integrateMCPScenario(t, bin, self, r, user) })
		}
	}
}

func integrateMCPScenario(t *testing.T, bin, self string, r agentRuntime, user bool) {
	tmp := t.TempDir()
	ws := replayWorkspace(t, tmp)
	home := filepath.Join(tmp, "home")
	env := append(hookEnv(tmp), "HOME="+home)
	plain := []string{"-C", ws, "integrate", r.spec.Runtime}
	dir := ws
	if user {
		plain = append(plain, "--user")
		dir = home
	}
	args := append(append([]string(nil), plain...), "--json")
	file := r.mcp.File(!user, dir)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := []byte(theirMCP(r.mcp.Format))
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	runIntegrate(t, bin, env, tmp, args...)
	installed, _ := os.ReadFile(file)
	command, cargs := registeredServer(t, r.mcp.Format, installed)
	if command != self || strings.Join(cargs, " ") != "mcp" {
		t.Fatalf("registered server: %q %q, want %q mcp\n%s", command, cargs, self, installed)
	}
	backups, _ := filepath.Glob(file + ".ckpt-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups of %s: %v", file, backups)
	}
	if b, _ := os.ReadFile(backups[0]); !bytes.Equal(b, orig) {
		t.Errorf("backup holds %q, want the original", b)
	}
	if ls := listIntegrations(t, bin, env, tmp, ws, r.spec.Runtime); ls.UserMCP.Installed != user || ls.ProjectMCP.Installed == user {
		t.Errorf("ckpt integrate list: %+v (user scope %v)", ls, user)
	}
	runIntegrate(t, bin, env, tmp, args...)
	if again, _ := os.ReadFile(file); !bytes.Equal(again, installed) {
		t.Errorf("second integrate changed %s", file)
	}
	if after, _ := filepath.Glob(file + ".ckpt-backup-*"); len(after) != 1 {
		t.Errorf("second integrate made a backup: %v", after)
	}
	serveRegistered(t, command, cargs, ws, env)

	runIntegrate(t, bin, env, tmp, append(args, "--uninstall")...)
	if removed, _ := os.ReadFile(file); !parsedEqual(t, r.mcp.Format, removed, orig) {
		t.Errorf("uninstall: file is\n%s\nwant the original\n%s", removed, orig)
	}

	bad := []byte("{\"mcpServers\": [\n")
	if r.mcp.Format == "toml" {
		bad = []byte("[mcp_servers\n")
	}
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	rr := hookExec(t, bin, env, tmp, nil, plain...)
	if now, _ := os.ReadFile(file); rr.code != 2 || !strings.Contains(rr.stderr, file) || !bytes.Equal(now, bad) {
		t.Errorf("malformed MCP file: exit %d, stderr %q, unchanged %v", rr.code, rr.stderr, bytes.Equal(now, bad))
	}
}

// serveRegistered runs the registered command in the workspace, as the
// runtime would (no ckpt on PATH), and lists its tools.
func serveRegistered(t *testing.T, command string, args []string, ws string, env []string) {
	t.Helper()
	cmd := exec.Command(command, args...)
	cmd.Dir, cmd.Env = ws, append(append([]string(nil), env...), "PATH=/nonexistent")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("registered server: %v", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil || len(res.Tools) != 6 {
		t.Fatalf("registered server's tools: %v %v", res, err)
	}
}
