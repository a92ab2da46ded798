package codex

import "testing"

// TestTrustHashAcceptedByCodex: the hash of a handler Codex 0.171.0 ran
// once config.toml carried it (hooks.json written by `ckpt integrate
// codex --user`, binary /tmp/rtg/bin/ckpt, Stop's first group).
func TestTrustHashAcceptedByCodex(t *testing.T) {
	hooksJSON := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/tmp/rtg/bin/ckpt hook codex", "timeout": 60}]}, {"hooks": [{"type": "command", "command": "cat >> /tmp/rtc/payloads.jsonl; echo >> /tmp/rtc/payloads.jsonl"}]}]}}`
	got := Trusts("/tmp/rtc/home/.codex/hooks.json", []byte(hooksJSON), "")
	want := Trust{"/tmp/rtc/home/.codex/hooks.json:stop:0:0", "sha256:8c2e4c90be575b255603b1af347e452b4549b2433fa509a8d9b0603f1b9402b8"}
	if len(got) != 1 || got[0] != want {
		t.Errorf("Trusts = %+v, want [%+v]", got, want)
	}
	if snake("UserPromptSubmit") != "user_prompt_submit" || snake("PreToolUse") != "pre_tool_use" {
		t.Errorf("snake")
	}
}
