package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const nobodyUID = 65534

func TestPrepareStateDirCreatesPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "state")
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	if err := PrepareStateDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("created with mode %04o, want 0700", perm)
	}
	if err := PrepareStateDir(dir); err != nil {
		t.Errorf("a second time: %v", err)
	}
}

func TestPrepareStateDirRefuses(t *testing.T) {
	root := os.Getuid() == 0
	tests := []struct {
		name     string
		rootOnly bool
		setup    func(t *testing.T, base string) string // returns the state dir
		want     string                                 // in the error; "" = accepted
	}{
		{name: "group-writable", setup: func(t *testing.T, base string) string {
			return mkdir(t, filepath.Join(base, "st"), 0o770)
		}, want: "is writable by group or others (mode 0770): chmod 700 "},
		{name: "world-writable", setup: func(t *testing.T, base string) string {
			return mkdir(t, filepath.Join(base, "st"), os.ModeSticky|0o777)
		}, want: "chmod 700 "},
		{name: "readable by others is fine", setup: func(t *testing.T, base string) string {
			return mkdir(t, filepath.Join(base, "st"), 0o755)
		}},
		{name: "a file", setup: func(t *testing.T, base string) string {
			p := filepath.Join(base, "st")
			must(t, os.WriteFile(p, nil, 0o600))
			return p
		}, want: "is not a directory"},
		{name: "owned by another user", rootOnly: true, setup: func(t *testing.T, base string) string {
			p := mkdir(t, filepath.Join(base, "st"), 0o700)
			must(t, os.Chown(p, nobodyUID, nobodyUID))
			return p
		}, want: "is owned by uid 65534, not by you"},
		{name: "symlink to a directory of ours", setup: func(t *testing.T, base string) string {
			target := mkdir(t, filepath.Join(base, "real"), 0o700)
			must(t, os.Symlink(target, filepath.Join(base, "st")))
			return filepath.Join(base, "st")
		}},
		{name: "relative symlink to a group-writable directory", setup: func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "real"), 0o775)
			must(t, os.Symlink("real", filepath.Join(base, "st")))
			return filepath.Join(base, "st")
		}, want: "chmod 700 "},
		{name: "symlink to another user's directory", rootOnly: true, setup: func(t *testing.T, base string) string {
			target := mkdir(t, filepath.Join(base, "real"), 0o700)
			must(t, os.Chown(target, nobodyUID, nobodyUID))
			must(t, os.Symlink(target, filepath.Join(base, "st")))
			return filepath.Join(base, "st")
		}, want: "owned by uid 65534"},
		{name: "inside another user's directory", rootOnly: true, setup: func(t *testing.T, base string) string {
			theirs := mkdir(t, filepath.Join(base, "theirs"), 0o755)
			must(t, os.Chown(theirs, nobodyUID, nobodyUID))
			return filepath.Join(theirs, "st")
		}, want: "on the way to the state directory, is owned by uid 65534"},
		{name: "symlink planted in another user's directory", rootOnly: true, setup: func(t *testing.T, base string) string {
			ours := mkdir(t, filepath.Join(base, "ours"), 0o700)
			theirs := mkdir(t, filepath.Join(base, "theirs"), 0o755)
			must(t, os.Symlink(ours, filepath.Join(theirs, "st")))
			must(t, os.Chown(theirs, nobodyUID, nobodyUID))
			return filepath.Join(theirs, "st")
		}, want: "is owned by uid 65534 (neither you nor root)"},
		{name: "through a symlink to another user's directory", rootOnly: true, setup: func(t *testing.T, base string) string {
			theirs := mkdir(t, filepath.Join(base, "theirs"), 0o755)
			mkdir(t, filepath.Join(theirs, "st"), 0o700)
			must(t, os.Chown(theirs, nobodyUID, nobodyUID))
			must(t, os.Symlink(theirs, filepath.Join(base, "link")))
			return filepath.Join(base, "link", "st")
		}, want: "is owned by uid 65534 (neither you nor root)"},
		{name: "in a writable parent", setup: func(t *testing.T, base string) string {
			return filepath.Join(mkdir(t, filepath.Join(base, "open"), 0o777), "st")
		}, want: "is writable by group or others (mode 0777): chmod go-w "},
		{name: "in a sticky writable parent, like /tmp", setup: func(t *testing.T, base string) string {
			return filepath.Join(mkdir(t, filepath.Join(base, "tmp"), os.ModeSticky|0o777), "st")
		}},
		{name: "symlink loop", setup: func(t *testing.T, base string) string {
			must(t, os.Symlink("b", filepath.Join(base, "a")))
			must(t, os.Symlink("a", filepath.Join(base, "b")))
			return filepath.Join(base, "a")
		}, want: "too many symlinks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && !root {
				t.Skip("needs root to make a directory of another user's")
			}
			base := t.TempDir()
			must(t, os.Chmod(base, 0o755))
			dir := tt.setup(t, base)
			err := PrepareStateDir(dir)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("PrepareStateDir: %v, want it accepted", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrUnsafeStateDir) {
				t.Fatalf("PrepareStateDir: %v; want ErrUnsafeStateDir saying %q", err, tt.want)
			}
		})
	}
}

func mkdir(t *testing.T, p string, mode os.FileMode) string {
	t.Helper()
	must(t, os.Mkdir(p, 0o700))
	must(t, os.Chmod(p, mode))
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
