package e2e

import (
	"strings"
	"testing"
)

// TestClientAndEngineReadConfigAlike: ckpt (the thin client, which finds
// the daemon with the config) and the engine (ckptd, or the embedded run)
// read the same ckpt.yaml through the same parser. Keys in other cases
// are the same key, a nested map is a dotted unknown key, and a key
// written twice in different cases is refused with one line naming both
// spellings, by the client (exit 2) and by the engine (a daemon keeps its
// settings and says why in status).
func TestClientAndEngineReadConfigAlike(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write("ckpt.yaml", "IGNORE: ['*.log']\nMax_File_Size: 64\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r")
		ws.write("x.log", "ignored\n")
		if got := ws.uncovered("c1", "big.bin", 100); len(got) != 1 || got[0] != "big.bin" {
			t.Errorf("Max_File_Size: 64: uncovered %q, want [big.bin]", got)
		}
		var s statusConfigJSON
		ws.ckptJSON(&s, "status")
		assertChanges(t, "status with IGNORE: ['*.log']", s.Changes, want("added big.bin"))

		cases := []struct{ file, msg string }{
			{"ignore: ['*.log']\nIgnore: ['*.tmp']\n", `config: ignore in ` + ws.path("ckpt.yaml") + `: set twice, as "Ignore" and "ignore" (keys are case-insensitive)`},
			{"ignore: {log: 1}\n", `config: ignore.log in ` + ws.path("ckpt.yaml") + `: unknown key`},
		}
		for _, c := range cases {
			ws.write("ckpt.yaml", c.file)
			r := ws.ckptResult("checkpoint")
			if r.code != 2 || !strings.HasPrefix(r.stderr, "ckpt: "+c.msg) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("checkpoint with ckpt.yaml %q: want exit 2 and one line %q\n%s", c.file, c.msg, r)
			}
			if m == daemon {
				ws.assertConfigError(c.msg)
			} else if r := ws.ckptResult("status"); r.code != 2 || !strings.HasPrefix(r.stderr, "ckpt: "+c.msg) {
				t.Errorf("embedded status with ckpt.yaml %q: want exit 2 and %q\n%s", c.file, c.msg, r)
			}
		}
		ws.write("ckpt.yaml", "ignore: ['*.log']\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r")
	})
}
