package snapshot

import (
	"os"
	"testing"
)

// TestMain shrinks the restore's write batches so that the crash tests'
// restores (run in child processes of this binary, which pass here too)
// span several of them.
func TestMain(m *testing.M) {
	writeBatch = 256
	os.Exit(m.Run())
}
