package install

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzMerge: any settings data is either refused as malformed or merged
// into valid JSON that holds ckpt's hooks, merging again changes nothing,
// and removing leaves none of ckpt's hooks and is then stable.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(theirs), false)
	f.Add([]byte(`{"version":1,"hooks":{"stop":[{"command":"ckpt hook cursor"},7,"x"]}}`), true)
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"'/a b/ckpt' hook codex"},null]}],"enabled":true}}`), false)
	f.Add([]byte(``), false)
	f.Fuzz(func(t *testing.T, data []byte, flat bool) {
		s := grouped
		if flat {
			s = Spec{Runtime: "codex", Layout: Flat, TopLevel: map[string]any{"version": 1}, Hooks: grouped.Hooks}
		}
		const cmd = "/usr/bin/ckpt hook codex"
		out, _, err := Merge(s, "f", data, cmd)
		var me *MalformedError
		if err != nil {
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a MalformedError", err)
			}
			return
		}
		if !json.Valid(out) || !Installed(s, out, "") {
			t.Fatalf("merged %q: valid %v", out, json.Valid(out))
		}
		again, changed, err := Merge(s, "f", out, cmd)
		if err != nil || changed || string(again) != string(out) {
			t.Fatalf("second merge of %q: changed %v err %v", out, changed, err)
		}
		removed, _, err := Remove(s, "f", out, "")
		if err != nil || Installed(s, removed, "") || !json.Valid(removed) {
			t.Fatalf("remove of %q: %q, %v", out, removed, err)
		}
		if _, changed, _ := Remove(s, "f", removed, ""); changed {
			t.Fatalf("second remove changed %q", removed)
		}
	})
}

// FuzzEnableFlag: any TOML data is refused or gets the flag, stably.
func FuzzEnableFlag(f *testing.F) {
	f.Add([]byte("# c\n[features]\nhooks = false\n"))
	f.Add([]byte("a = 1"))
	f.Add([]byte("[features.sub]\nx=1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := EnableFlag("c", data, "features", "hooks")
		if err != nil {
			return
		}
		if !FlagSet(out, "features", "hooks") {
			t.Fatalf("%q: flag not set in %q", data, out)
		}
		if _, changed, err := EnableFlag("c", out, "features", "hooks"); changed || err != nil {
			t.Fatalf("%q: second enable changed %v err %v", out, changed, err)
		}
	})
}
