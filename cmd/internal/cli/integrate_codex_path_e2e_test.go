package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestIntegrateCodexTrustKeyResolved: Codex keys a hook's trust on the
// path it loaded hooks.json from, the .codex folder it found from its
// working directory, which the kernel gives symlink-free (codex-rs
// hooks/src/engine/discovery.rs: "<hooks.json path>:<event>:<group>:
// <handler>"). Run from a path through a symlink (-C, or the shell's
// logical working directory), ckpt integrate codex --project keys every
// trust record on the resolved path, so Codex finds them.
func TestIntegrateCodexTrustKeyResolved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ckpt binary")
	}
	bin := hookBuildCkpt(t)
	for _, how := range []string{"-C through a symlink", "working directory through a symlink"} {
		t.Run(strings.ReplaceAll(how, " ", "-"), func(t *testing.T) {
			tmp := t.TempDir()
			real := filepath.Join(tmp, "real")
			if err := os.MkdirAll(real, 0o755); err != nil {
				t.Fatal(err)
			}
			ws := replayWorkspace(t, real)
			resolved, err := filepath.EvalSymlinks(ws)
			if err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(tmp, "link")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			via := filepath.Join(link, filepath.Base(ws))
			home := filepath.Join(tmp, "home")
			env := append(hookEnv(tmp), "HOME="+home)
			args := []string{"integrate", "codex", "--project", "--json"}
			dir := tmp
			if how == "-C through a symlink" {
				args = append([]string{"-C", via}, args...)
			} else {
				dir, env = via, append(env, "PWD="+via)
			}
			runIntegrate(t, bin, env, dir, args...)
			data, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Hooks struct {
					State map[string]any `toml:"state"`
				} `toml:"hooks"`
			}
			if err := toml.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Hooks.State) == 0 {
				t.Fatalf("no trust records in:\n%s", data)
			}
			want := filepath.Join(resolved, ".codex", "hooks.json") + ":"
			for key := range doc.Hooks.State {
				if !strings.HasPrefix(key, want) {
					t.Errorf("trust record %q is not keyed on the resolved hooks.json %s", key, want)
				}
			}
			if _, err := os.Stat(filepath.Join(resolved, ".codex", "hooks.json")); err != nil {
				t.Errorf("hooks.json: %v", err)
			}
		})
	}
}
