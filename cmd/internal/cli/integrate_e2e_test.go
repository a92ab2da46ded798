package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/ckptdev/ckpt/integration/hooks/codex"
	"github.com/ckptdev/ckpt/integration/hooks/install"
)

// theirSettings is a settings file a person already has: other keys, and
// hooks of their own on an event ckpt uses and on one it does not.
func theirSettings(runtime string) string {
	switch runtime {
	case "cursor":
		return `{"version": 1, "hooks": {"preToolUse": [{"command": "./audit.sh", "matcher": "Shell"}], "afterFileEdit": [{"command": "prettier --write"}]}}` + "\n"
	case "gemini":
		return `{"theme": "GitHub", "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5000}]}], "Notification": [{"hooks": [{"type": "command", "command": "notify-send gemini"}]}]}, "hooksConfig": {"enabled": true}}` + "\n"
	}
	pre := "PreToolUse"
	return `{"model": "opus", "permissions": {"allow": ["Bash(go test:*)"]}, "hooks": {"` + pre + `": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard --strict", "timeout": 5}]}], "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}` + "\n"
}

func decodeJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

type integrateJSON struct {
	Runtime, File, Backup, Diff string
	Changed                     bool
	DryRun                      bool `json:"dry_run"`
	Uninstall                   bool
	Also                        []struct {
		File, Backup string
		Changed      bool
	}
}

// TestIntegrateEndToEnd installs each runtime's hooks with the real
// binary into settings that already hold other hooks, in the project and
// in the home directory: merged, backed up, idempotent, working from a
// shell without ckpt on PATH, cleanly uninstalled; a malformed file is
// refused and left as it was.
func TestIntegrateEndToEnd(t *testing.T) {
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
			t.Run(r.spec.Runtime+"/"+scope, func(t *testing.T) { integrateScenario(t, bin, self, r, user) })
		}
	}
}

func integrateScenario(t *testing.T, bin, self string, r agentRuntime, user bool) {
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
	file := r.spec.File(!user, dir)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := []byte(theirSettings(r.spec.Runtime))
	if err := os.WriteFile(file, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	toml := filepath.Join(dir, ".codex", "config.toml")
	origTOML := []byte("# my settings\nmodel = \"o3\"\n\n[features]\nweb_search = true\n")
	if r.spec.Runtime == "codex" {
		if err := os.WriteFile(toml, origTOML, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := runIntegrate(t, bin, env, tmp, args...)
	if !res.Changed || res.File != file || res.Runtime != r.spec.Runtime {
		t.Fatalf("integrate: %+v, want %s changed", res, file)
	}
	if backup, err := os.ReadFile(res.Backup); err != nil || !bytes.Equal(backup, orig) {
		t.Errorf("backup %q: %v, holds %q, want the original", res.Backup, err, backup)
	}
	installed, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(file); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the original 0600", info.Mode().Perm())
	}
	checkInstalled(t, r.spec, installed, self)
	for _, keep := range []string{"guard", "notify-send", "audit.sh", "prettier"} {
		if bytes.Contains(orig, []byte(keep)) && !bytes.Contains(installed, []byte(keep)) {
			t.Errorf("their hook %s is gone:\n%s", keep, installed)
		}
	}
	if r.spec.Runtime == "codex" {
		data, _ := os.ReadFile(toml)
		if !install.FlagSet(data, "features", "hooks") || !bytes.HasPrefix(data, []byte("# my settings\n")) || !bytes.Contains(data, []byte("web_search = true")) {
			t.Errorf("config.toml after integrate:\n%s", data)
		}
		wantAlso := []string{toml}
		if !user {
			wantAlso = append(wantAlso, filepath.Join(home, ".codex", "config.toml"))
		}
		if len(res.Also) != len(wantAlso) {
			t.Errorf("also: %+v, want %v", res.Also, wantAlso)
		}
		for i, a := range res.Also {
			if i < len(wantAlso) && (!a.Changed || a.File != wantAlso[i]) {
				t.Errorf("also[%d]: %+v, want %s changed", i, a, wantAlso[i])
			}
		}
		checkCodexTrust(t, file, installed, self, wantAlso[len(wantAlso)-1], true)
	}
	runInstalledHook(t, r.spec, installed, env, tmp, ws)

	// Again: nothing changes, not a byte, and no new backup.
	backups, _ := filepath.Glob(file + ".ckpt-backup-*")
	again := runIntegrate(t, bin, env, tmp, args...)
	now, _ := os.ReadFile(file)
	after, _ := filepath.Glob(file + ".ckpt-backup-*")
	if again.Changed || again.Backup != "" || !bytes.Equal(now, installed) || len(after) != len(backups) {
		t.Errorf("second integrate: %+v, file same %v, backups %d→%d", again, bytes.Equal(now, installed), len(backups), len(after))
	}
	if ls := listIntegrations(t, bin, env, tmp, ws, r.spec.Runtime); ls.User.Installed != user || ls.Project.Installed == user {
		t.Errorf("ckpt integrate list: %+v (user scope %v)", ls, user)
	}

	// A dry run of the uninstall shows the change and writes nothing.
	dry := runIntegrate(t, bin, env, tmp, append(args, "--uninstall", "--dry-run")...)
	if now, _ := os.ReadFile(file); !dry.Changed || !dry.DryRun || !strings.Contains(dry.Diff, "hook "+r.spec.Runtime) || !bytes.Equal(now, installed) {
		t.Errorf("dry run: %+v; file unchanged %v", dry, bytes.Equal(now, installed))
	}
	un := runIntegrate(t, bin, env, tmp, append(args, "--uninstall")...)
	removed, _ := os.ReadFile(file)
	if !un.Changed || !reflect.DeepEqual(decodeJSON(t, removed), decodeJSON(t, orig)) {
		t.Errorf("uninstall: %+v; file is\n%s\nwant (as JSON) the original\n%s", un, removed, orig)
	}
	if r.spec.Runtime == "codex" {
		checkCodexTrust(t, file, installed, self, filepath.Join(home, ".codex", "config.toml"), false)
	}
	if un2 := runIntegrate(t, bin, env, tmp, append(args, "--uninstall")...); un2.Changed {
		t.Errorf("second uninstall changed the file: %+v", un2)
	}

	// A malformed file is refused with one line and not touched.
	bad := []byte("{\"hooks\": {\"Stop\": [\n")
	if err := os.WriteFile(file, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(file + ".ckpt-backup-*")
	rr := hookExec(t, bin, env, tmp, nil, plain...)
	now, _ = os.ReadFile(file)
	after, _ = filepath.Glob(file + ".ckpt-backup-*")
	if rr.code != 2 || strings.Count(rr.stderr, "\n") != 1 || !strings.Contains(rr.stderr, file) || !bytes.Equal(now, bad) || len(after) != len(before) {
		t.Errorf("malformed: exit %d, stderr %q, file unchanged %v, backups %d→%d", rr.code, rr.stderr, bytes.Equal(now, bad), len(before), len(after))
	}
	if r.spec.Runtime == "codex" {
		// A malformed config.toml refuses the whole change: hooks.json too.
		badTOML := []byte("[features\nhooks = true\n")
		if err := os.WriteFile(file, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(toml, badTOML, 0o644); err != nil {
			t.Fatal(err)
		}
		rr := hookExec(t, bin, env, tmp, nil, plain...)
		hj, _ := os.ReadFile(file)
		ct, _ := os.ReadFile(toml)
		if rr.code != 2 || strings.Count(rr.stderr, "\n") != 1 || !strings.Contains(rr.stderr, toml) || !bytes.Equal(hj, orig) || !bytes.Equal(ct, badTOML) {
			t.Errorf("malformed config.toml: exit %d, stderr %q, hooks.json unchanged %v, config.toml unchanged %v", rr.code, rr.stderr, bytes.Equal(hj, orig), bytes.Equal(ct, badTOML))
		}
	}
}

func runIntegrate(t *testing.T, bin string, env []string, dir string, args ...string) integrateJSON {
	t.Helper()
	r := hookExec(t, bin, env, dir, nil, args...)
	var res integrateJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("ckpt %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return res
}

func listIntegrations(t *testing.T, bin string, env []string, dir, ws, runtime string) runtimeStatus {
	t.Helper()
	r := hookExec(t, bin, env, dir, nil, "-C", ws, "integrate", "--json")
	var out struct{ Runtimes []runtimeStatus }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("ckpt integrate: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	for _, s := range out.Runtimes {
		if s.Runtime == runtime {
			return s
		}
	}
	t.Fatalf("ckpt integrate does not list %s: %s", runtime, r.stdout)
	return runtimeStatus{}
}

// ckptHandlers are the handlers in a settings file that run ckpt for the
// runtime, by event.
func ckptHandlers(t *testing.T, spec install.Spec, data []byte) map[string][]map[string]any {
	t.Helper()
	doc, _ := decodeJSON(t, data).(map[string]any)
	hooks, _ := doc["hooks"].(map[string]any)
	found := map[string][]map[string]any{}
	for event, v := range hooks {
		list, _ := v.([]any)
		for _, e := range list {
			group, _ := e.(map[string]any)
			handlers := []any{group}
			if spec.Layout == install.Grouped {
				handlers, _ = group["hooks"].([]any)
			}
			for _, h := range handlers {
				hm, _ := h.(map[string]any)
				if c, _ := hm["command"].(string); strings.Contains(c, "hook "+spec.Runtime) {
					hm["_matcher"] = group["matcher"]
					found[event] = append(found[event], hm)
				}
			}
		}
	}
	return found
}

// checkInstalled: one handler per event ckpt needs, naming this binary by
// its absolute path, with the event's timeout and matcher.
func checkInstalled(t *testing.T, spec install.Spec, data []byte, self string) {
	t.Helper()
	found := ckptHandlers(t, spec, data)
	if len(found) != len(spec.Hooks) {
		t.Errorf("ckpt is registered for %d events, want %d:\n%s", len(found), len(spec.Hooks), data)
	}
	for _, h := range spec.Hooks {
		hs := found[h.Event]
		if len(hs) != 1 {
			t.Errorf("%s: %d ckpt handlers, want 1", h.Event, len(hs))
			continue
		}
		if c := hs[0]["command"]; c != install.Command(self, spec.Runtime) || !filepath.IsAbs(self) {
			t.Errorf("%s: command %v, want %q", h.Event, c, install.Command(self, spec.Runtime))
		}
		if to, _ := hs[0]["timeout"].(float64); int(to) != h.Timeout {
			t.Errorf("%s: timeout %v, want %d", h.Event, hs[0]["timeout"], h.Timeout)
		}
		if m, _ := hs[0]["_matcher"].(string); spec.Layout == install.Grouped && m != h.Matcher {
			t.Errorf("%s: matcher %q, want %q", h.Event, m, h.Matcher)
		}
	}
	if spec.Layout == install.Flat {
		if doc, _ := decodeJSON(t, data).(map[string]any); doc["version"] != float64(1) {
			t.Errorf("no version 1:\n%s", data)
		}
	}
}

// runInstalledHook runs the installed command line through a shell whose
// PATH has no ckpt, as the runtime would, with an event ckpt ignores.
func runInstalledHook(t *testing.T, spec install.Spec, data []byte, env []string, dir, ws string) {
	t.Helper()
	var command string
	for _, hs := range ckptHandlers(t, spec, data) {
		command, _ = hs[0]["command"].(string)
	}
	sh := exec.Command("/bin/sh", "-c", command)
	sh.Dir = ws
	sh.Env = append(append([]string(nil), env...), "PATH=/nonexistent")
	sh.Stdin = strings.NewReader(`{"hook_event_name":"Notification","session_id":"s","conversation_id":"s"}`)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Errorf("installed command %q from a shell without ckpt on PATH: %v\n%s", command, err, out)
	}
}

// TestIntegrateBadUsage: an unknown runtime and conflicting flags are
// usage errors.
func TestIntegrateBadUsage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	bin := hookBuildCkpt(t)
	tmp := t.TempDir()
	env := append(hookEnv(tmp), "HOME="+filepath.Join(tmp, "home"))
	for _, args := range [][]string{{"integrate", "vim"}, {"integrate", "codex", "--project", "--user"}, {"integrate", "--uninstall"}, {"integrate", "codex", "gemini"}} {
		r := hookExec(t, bin, env, tmp, nil, args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("ckpt %s: exit %d, stderr %q; want 2 and one line", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(tmp, "home")); len(entries) > 0 {
		t.Errorf("bad usage wrote in the home directory")
	}
}

// checkCodexTrust: the user's config.toml trusts each of ckpt's Codex
// handlers (so Codex runs them without a review), or, after an
// uninstall, none of them.
func checkCodexTrust(t *testing.T, hooksFile string, hooksJSON []byte, self, config string, want bool) {
	t.Helper()
	trusts := codex.Trusts(hooksFile, hooksJSON, self)
	if len(trusts) != len(codex.Install.Hooks) {
		t.Fatalf("%d trust records for %d hooks", len(trusts), len(codex.Install.Hooks))
	}
	data, _ := os.ReadFile(config)
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", config, err)
	}
	hooks, _ := doc["hooks"].(map[string]any)
	state, _ := hooks["state"].(map[string]any)
	for _, tr := range trusts {
		entry, _ := state[tr.Key].(map[string]any)
		if got, _ := entry["trusted_hash"].(string); (got == tr.Hash) != want {
			t.Errorf("%s: [hooks.state.%q] trusted_hash = %q, want %s (present %v)", config, tr.Key, got, tr.Hash, want)
		}
	}
}
