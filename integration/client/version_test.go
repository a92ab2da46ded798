package client

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ckptdev/ckpt/integration/api"
)

// serveVersion answers every request on a new socket with {} and the
// version header v ("" sends none).
func serveVersion(t *testing.T, v string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ckv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v != "" {
			w.Header().Set(api.VersionHeader, v)
		}
		w.Write([]byte("{}"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return socket
}

func TestVersionWarningOnce(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		warnings      int
	}{
		{"same", api.Version, 0},
		{"other", "0.0.0-other", 1},
		{"none", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			c, err := Dial(serveVersion(t, tc.version), Options{VersionWarning: func(msg string) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, msg)
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			for range 3 {
				if _, err := c.Health(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Workspace("/w").Status(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != tc.warnings {
				t.Fatalf("%d warnings %q, want %d", len(got), got, tc.warnings)
			}
			if tc.warnings > 0 && (strings.Contains(got[0], "\n") || !strings.Contains(got[0], api.Version)) {
				t.Errorf("warning %q: want one line naming this binary's version %s", got[0], api.Version)
			}
		})
	}
}
