package hooks

import "testing"

func TestCallIDStableAcrossKeyOrder(t *testing.T) {
	a := CallID("", "write_file", []byte(`{"file_path":"a","content":"x"}`))
	b := CallID("", "write_file", []byte(` {"content":"x", "file_path":"a"}`))
	if a != b || !ValidID(a) {
		t.Errorf("%q != %q", a, b)
	}
	if CallID("", "write_file", []byte(`{"file_path":"b"}`)) == a {
		t.Errorf("different input, same id")
	}
	if CallID("tool_1", "x", nil) != "tool_1" {
		t.Errorf("a usable id is kept")
	}
}

func TestUndoLineQuotes(t *testing.T) {
	if got := UndoLine("abc-1", "turn-2"); got != "ckpt: undo this turn with: ckpt revert --session abc-1 --run turn-2" {
		t.Errorf("%q", got)
	}
	if got := UndoLine("it's $x", "turn-2"); got != `ckpt: undo this turn with: ckpt revert --session 'it'\''s $x' --run turn-2` {
		t.Errorf("%q", got)
	}
}
