package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// nobody is the unprivileged user tests run ckpt and ckptd as when root's
// power to read anything would hide what they test.
const nobody = 65534

// newNobodyWorkspace is newWorkspace for a test whose ckpt and ckptd run
// as uid/gid 65534: the temporary directories are handed to that user.
// Call chownTree after writing the first files (the test writes as root).
func newNobodyWorkspace(t *testing.T, m mode, env ...string) *workspace {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running ckpt as another user needs root")
	}
	ws := newWorkspace(t, m, env...)
	ws.cred = &syscall.Credential{Uid: nobody, Gid: nobody}
	for _, d := range []string{ws.base, ws.home, ws.outside, ws.logs} {
		if err := os.Chown(d, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	ws.chownTree()
	return ws
}

// chownTree gives everything in the workspace to the unprivileged user.
func (ws *workspace) chownTree() {
	ws.t.Helper()
	err := filepath.WalkDir(ws.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		ws.t.Fatal(err)
	}
}

// shAs runs a shell script in the workspace root as the workspace's user
// (chmod as the owner, not as root); it must succeed.
func (ws *workspace) shAs(script string) string {
	ws.t.Helper()
	r := runAs(ws.t, ws.cred, ws.root, ws.env, "sh", "-c", script)
	if r.code != 0 {
		ws.t.Fatalf("sh -c %q: exit %d\n%s%s", script, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}
