package e2e

import (
	"fmt"
	"testing"
)

// TestEveryChangeVisible is CONTRACT semantic 9: `echo x > f; ckpt status`
// lists f, every time, with the new content. In daemon mode this is the
// sync barrier: the write's events may not have reached the daemon when
// status asks. Every iteration writes a new content (the first ten keep
// the size, which only the racy-timestamp rule catches), so the
// fingerprint must change every time; every tenth deletes f instead.
func TestEveryChangeVisible(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("base.txt", "base\n")
		ws.start()
		seen := map[string]int{}
		for i := range 50 {
			deleting := i%10 == 9
			if deleting {
				ws.sh("rm f")
			} else {
				ws.sh(fmt.Sprintf("echo %d > f", i))
			}
			s := ws.status()
			w := want("added f")
			if deleting {
				w = want()
			}
			assertChanges(t, fmt.Sprintf("iteration %d: ckpt status", i), s.Changes, w)
			if !deleting {
				if j, ok := seen[s.Fingerprint]; ok {
					t.Fatalf("iteration %d: fingerprint %s is iteration %d's: the new content of f was not seen", i, s.Fingerprint, j)
				}
				seen[s.Fingerprint] = i
			}
		}
	})
}
