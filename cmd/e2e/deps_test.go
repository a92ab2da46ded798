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
