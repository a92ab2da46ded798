package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A process killed between creating a log file and sizing it leaves an
// empty .mem or .vlog behind; the store must still open, with everything
// acknowledged before intact.
func TestOpenAfterEmptyLogFiles(t *testing.T) {
	for _, name := range []string{"00042.mem", "000042.vlog"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			h := confPutBlob(t, s, []byte("acknowledged"))
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "db", name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err = Open(dir, time.Second)
			if err != nil {
				t.Fatalf("open with an empty %s: %v", name, err)
			}
			defer s.Close()
			if got := confReadBlob(t, s, h); string(got) != "acknowledged" {
				t.Fatalf("blob reads %q", got)
			}
		})
	}
}
