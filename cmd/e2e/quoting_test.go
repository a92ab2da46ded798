package e2e

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNonUTF8NamesAreQuoted: a name that is not UTF-8 comes out of --json
// in git's C-quoted form (valid, lossless JSON), text output quotes it
// too, and every command taking a PATH accepts that form back.
func TestNonUTF8NamesAreQuoted(t *testing.T) {
	const raw, quoted = "\xff\xfe", `"dir/\377\376"`
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write("dir/"+raw, "one\n")
		ws.start()
		initial := ws.status().CurrentCheckpointID
		ws.write("dir/"+raw, "two\n")
		ws.write("a.txt", "b\n")

		r := ws.ckptResult("status", "--json")
		if r.code != 0 || !utf8.ValidString(r.stdout) {
			t.Fatalf("status --json is not valid UTF-8:\n%s", r)
		}
		var s statusJSON
		if err := decodeOne(r.stdout, &s); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(kinds(s.Changes), ","); got != "modified "+quoted+",modified a.txt" {
			t.Errorf("status changes = %s, want modified %s,modified a.txt", got, quoted)
		}
		if text := ws.ckptOK("status"); !strings.Contains(text, quoted) {
			t.Errorf("status text does not quote the name:\n%s", text)
		}

		var d diffJSON
		r = ws.ckptResult("diff", "--json", "--", quoted)
		if err := decodeOne(r.stdout, &d); err != nil || r.code != 0 {
			t.Fatalf("diff -- the quoted name: %v\n%s", err, r)
		}
		if got := strings.Join(kinds(d.Files), ","); got != "modified "+quoted {
			t.Errorf("diff -- the quoted name = %s, want modified %s", got, quoted)
		}

		var res restoreJSON
		ws.ckptJSON(&res, "restore", initial, quoted, "--exact", "--yes")
		if got := strings.Join(kinds(res.Restored), ","); got != "modified "+quoted {
			t.Errorf("restore of the quoted name restored %s", got)
		}
		if got := ws.read("dir/" + raw); got != "one\n" {
			t.Errorf("after restore the file holds %q, want one", got)
		}
		if got := ws.read("a.txt"); got != "b\n" {
			t.Errorf("restore of one path changed a.txt to %q", got)
		}
		ws.assertBadInput("restore", initial, `"dir/\q"`, "--yes")
	})
}
