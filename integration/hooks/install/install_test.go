package install

import (
	"errors"
	"strings"
	"testing"

	"github.com/ckptdev/ckpt/fault"
)

var grouped = Spec{
	Runtime: "codex", Layout: Grouped, TimeoutUnit: "s",
	Hooks: []Hook{{Event: "UserPromptSubmit", Timeout: 120}, {Event: "PreToolUse", Timeout: 60}, {Event: "Stop", Timeout: 60}},
}

const theirs = `{
  "model": "x",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "/usr/local/bin/guard --strict", "timeout": 5 }
        ]
      }
    ],
    "Notification": [ { "hooks": [ { "type": "command", "command": "notify-send hi" } ] } ]
  },
  "zeta": [1, 2.50, {"a": null}]
}
`

func TestMergeKeepsTheirsAndIsIdempotent(t *testing.T) {
	const cmd = "/opt/ckpt dir/ckpt hook codex"
	out, changed, err := Merge(grouped, "hooks.json", []byte(theirs), Command("/opt/ckpt dir/ckpt", "codex"))
	if err != nil || !changed {
		t.Fatalf("merge: changed %v, err %v", changed, err)
	}
	s := string(out)
	for _, want := range []string{`"/usr/local/bin/guard --strict"`, `"notify-send hi"`, `"zeta": [`, `2.50`, `"model": "x"`, `"command": "'/opt/ckpt dir/ckpt' hook codex"`, `"timeout": 120`} {
		if !strings.Contains(s, want) {
			t.Errorf("merged file lacks %s:\n%s", want, s)
		}
	}
	if strings.Index(s, `"model"`) > strings.Index(s, `"hooks"`) || strings.Index(s, `"hooks"`) > strings.Index(s, `"zeta"`) {
		t.Errorf("top-level keys reordered:\n%s", s)
	}
	again, changed, err := Merge(grouped, "hooks.json", out, Command("/opt/ckpt dir/ckpt", "codex"))
	if err != nil || changed || string(again) != s {
		t.Fatalf("second merge: changed %v, err %v, same bytes %v", changed, err, string(again) == s)
	}
	if !Installed(grouped, out, "") || Installed(grouped, []byte(theirs), "") {
		t.Errorf("Installed wrong")
	}
	// A new binary path replaces the entries in place.
	moved, changed, err := Merge(grouped, "hooks.json", out, Command("/usr/bin/ckpt", "codex"))
	if err != nil || !changed || strings.Contains(string(moved), "/opt/ckpt dir") || strings.Count(string(moved), "hook codex") != 3 {
		t.Fatalf("re-merge with a new path: changed %v err %v:\n%s", changed, err, moved)
	}
	removed, changed, err := Remove(grouped, "hooks.json", out, "")
	if err != nil || !changed {
		t.Fatalf("remove: changed %v err %v", changed, err)
	}
	if strings.Contains(string(removed), "ckpt") || !strings.Contains(string(removed), "guard --strict") || strings.Contains(string(removed), "UserPromptSubmit") {
		t.Errorf("after remove:\n%s", removed)
	}
	if _, changed, _ := Remove(grouped, "hooks.json", removed, ""); changed {
		t.Errorf("second remove changed the file")
	}
	_ = cmd
}

func TestMergeOtherRuntimeAndMixedGroups(t *testing.T) {
	in := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"ckpt hook claude-code"},{"type":"command","command":"/bin/ckpt hook codex"},{"type":"command","command":"say done"}]}]}}`
	out, changed, err := Merge(grouped, "f", []byte(in), "/bin/ckpt hook codex")
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	if !strings.Contains(string(out), "ckpt hook claude-code") || !strings.Contains(string(out), "say done") || strings.Count(string(out), "hook codex") != 3 {
		t.Errorf("merged:\n%s", out)
	}
	if _, changed, _ := Merge(grouped, "f", out, "/bin/ckpt hook codex"); changed {
		t.Errorf("not idempotent on a mixed group")
	}
}

func TestMalformedRefused(t *testing.T) {
	for _, in := range []string{`{"hooks": [}`, `[1]`, `{"hooks": []}`, `{"a":1} x`} {
		_, _, err := Merge(grouped, "bad.json", []byte(in), "ckpt hook codex")
		var me *MalformedError
		if !errors.As(err, &me) || !errors.Is(err, fault.Invalid) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err %v, want one-line MalformedError of kind fault.Invalid", in, err)
		}
	}
	out, changed, err := Merge(grouped, "empty.json", nil, "ckpt hook codex")
	if err != nil || !changed || !Installed(grouped, out, "") {
		t.Errorf("empty file: %v %v", changed, err)
	}
}

func TestFlatLayout(t *testing.T) {
	s := Spec{Runtime: "cursor", Layout: Flat, TopLevel: map[string]any{"version": 1}, Hooks: []Hook{{Event: "preToolUse", Matcher: "Shell", Timeout: 60}}}
	in := `{"version": 1, "hooks": {"preToolUse": [{"command": "./audit.sh"}]}}`
	out, changed, err := Merge(s, "f", []byte(in), "/bin/ckpt hook cursor")
	if err != nil || !changed || !strings.Contains(string(out), `"matcher": "Shell"`) || !strings.Contains(string(out), "audit.sh") {
		t.Fatalf("%v %v\n%s", changed, err, out)
	}
	out2, _, _ := Merge(s, "f", nil, "/bin/ckpt hook cursor")
	if !strings.Contains(string(out2), `"version": 1`) {
		t.Errorf("new file lacks version:\n%s", out2)
	}
	back, _, _ := Remove(s, "f", out, "")
	if strings.Contains(string(back), "ckpt") || !strings.Contains(string(back), "audit.sh") {
		t.Errorf("removed:\n%s", back)
	}
}

func TestIsCkptCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ckpt hook codex":             true,
		"/usr/bin/ckpt hook codex":    true,
		"'/a b/ckpt' hook codex":      true,
		`"/a b/ckpt" hook codex --x`:  true,
		"/usr/bin/ckpt hook gemini":   false,
		"/usr/bin/notckpt hook codex": false,
		"echo ckpt hook codex":        false,
		"/usr/bin/ckpt hook":          false,
	} {
		if got := IsCkptCommand(cmd, "codex", "/opt/ckpt-dev"); got != want {
			t.Errorf("IsCkptCommand(%q) = %v", cmd, got)
		}
	}
}

func TestEnableFlag(t *testing.T) {
	cases := map[string]string{
		"":                 "[features]\nhooks = true\n",
		"model = \"o3\"\n": "model = \"o3\"\n\n[features]\nhooks = true\n",
		"# mine\n[features]\nother = 1\n[x]\ny=2\n": "# mine\n[features]\nhooks = true\nother = 1\n[x]\ny=2\n",
		"[features]\nhooks = false # off\n":         "[features]\nhooks = true\n",
	}
	for in, want := range cases {
		out, changed, err := EnableFlag("config.toml", []byte(in), "features", "hooks")
		if err != nil || !changed || string(out) != want {
			t.Errorf("%q: got %q changed %v err %v, want %q", in, out, changed, err, want)
		}
		if _, changed, _ := EnableFlag("config.toml", out, "features", "hooks"); changed {
			t.Errorf("%q: second enable changed it", in)
		}
	}
	for _, in := range []string{"[features\n", "features = { hooks = false }\n"} {
		if _, _, err := EnableFlag("config.toml", []byte(in), "features", "hooks"); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestSubtables(t *testing.T) {
	in := "# mine\n[features]\nhooks = true\n"
	tables := []Subtable{{"/h/hooks.json:stop:0:0", "sha256:aa"}, {"/h/hooks.json:pre_tool_use:1:0", "sha256:bb"}}
	out, changed, err := SetSubtables("c", []byte(in), "hooks.state", "trusted_hash", tables)
	want := in + "\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n\n[hooks.state.\"/h/hooks.json:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:bb\"\n"
	if err != nil || !changed || string(out) != want {
		t.Fatalf("set: %v %v\n%s", changed, err, out)
	}
	if _, changed, _ := SetSubtables("c", out, "hooks.state", "trusted_hash", tables); changed {
		t.Errorf("second set changed it")
	}
	tables[0].Value = "sha256:cc"
	out2, changed, err := SetSubtables("c", out, "hooks.state", "trusted_hash", tables)
	if err != nil || !changed || strings.Contains(string(out2), "sha256:aa") || strings.Count(string(out2), "[hooks.state.") != 2 {
		t.Fatalf("update: %v %v\n%s", changed, err, out2)
	}
	back, changed, err := RemoveSubtables("c", out2, "hooks.state", []string{tables[0].Name, tables[1].Name})
	if err != nil || !changed || string(back) != in {
		t.Fatalf("remove: %v %v\n%q", changed, err, back)
	}
}
