package hooks

import "testing"

func TestUndoLineQuotes(t *testing.T) {
	if got := UndoLine("abc-1", "turn-2"); got != "ckpt: undo this turn with: ckpt revert --session abc-1 --run turn-2" {
		t.Errorf("%q", got)
	}
	if got := UndoLine("it's $x", "turn-2"); got != `ckpt: undo this turn with: ckpt revert --session 'it'\''s $x' --run turn-2` {
		t.Errorf("%q", got)
	}
}
