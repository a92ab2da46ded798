package cli

import (
	"testing"

	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
)

// TestWorthSaving: a hook writes its state when a run starts or ends or
// waits, but not for every small advance of its transcript offset.
func TestWorthSaving(t *testing.T) {
	saved := claudecode.HookState{Session: "s", Turns: 1, Run: "turn-1", Transcript: "/t", TranscriptOffset: 100}
	for _, tt := range []struct {
		name string
		st   claudecode.HookState
		want bool
	}{
		{"unchanged", saved, false},
		{"offset moved a little", func() claudecode.HookState { s := saved; s.TranscriptOffset += 4096; return s }(), false},
		{"offset moved a lot", func() claudecode.HookState { s := saved; s.TranscriptOffset += offsetSaveStep; return s }(), true},
		{"offset went back", func() claudecode.HookState { s := saved; s.TranscriptOffset = 0; return s }(), true},
		{"run waits", func() claudecode.HookState { s := saved; s.Waiting = true; return s }(), true},
		{"run ended", claudecode.HookState{Session: "s", Turns: 1}, true},
	} {
		if got := worthSaving(tt.st, saved); got != tt.want {
			t.Errorf("%s: worthSaving = %v, want %v", tt.name, got, tt.want)
		}
	}
}
