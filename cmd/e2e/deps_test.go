package e2e

import (
	"strings"
	"testing"
)

// TestBinariesDoNotLinkTesting: test helpers belong in _test.go files or in
// packages only tests import. A production package that imports "testing"
// puts the test framework (and its flags) into ckpt and ckptd.
func TestBinariesDoNotLinkTesting(t *testing.T) {
	for _, pkg := range []string{"./cmd/ckpt", "./cmd/ckptd"} {
		out, err := goCommand(moduleDir, "list", "-deps", pkg)
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(out) {
			if dep == "testing" {
				t.Errorf("%s links the testing package: find the production file that imports it with\n"+
					"  go list -f '{{.ImportPath}} {{.Imports}}' -deps %s | grep -w testing", pkg, pkg)
			}
		}
	}
}

// TestCkptIsAThinClient: ckpt links none of the engine, so that with a
// daemon it starts about as fast as a binary that does nothing; ckptd runs
// what needs the engine for it. Nor does it link net/http (and the TLS and
// HTTP/2 code that comes with it), or a progress bar only the engine draws:
// it speaks HTTP/1.1 to the daemon itself (integration/client).
func TestCkptIsAThinClient(t *testing.T) {
	out, err := goCommand(moduleDir, "list", "-deps", "./cmd/ckpt")
	if err != nil {
		t.Fatalf("go list -deps ./cmd/ckpt: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(out) {
		for _, heavy := range []string{"github.com/dgraph-io/badger", "google.golang.org/protobuf", "github.com/modelcontextprotocol/go-sdk",
			"github.com/klauspost/compress", "github.com/ckptdev/ckpt/store", "github.com/ckptdev/ckpt/snapshot",
			"github.com/ckptdev/ckpt/drift", "github.com/ckptdev/ckpt/watcher", "github.com/ckptdev/ckpt/integration/local",
			"net/http", "crypto/tls", "github.com/schollz/progressbar"} {
			if dep == heavy || strings.HasPrefix(dep, heavy+"/") {
				t.Errorf("ckpt links %s: find the import with\n  go list -f '{{.ImportPath}} {{.Imports}}' -deps ./cmd/ckpt | grep %s", dep, heavy)
			}
		}
	}
}
