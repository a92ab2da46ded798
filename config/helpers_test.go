package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/pflag"
)

// testEnv is a fake environment: a fresh HOME, a workspace, and the paths of
// the two config files. Nothing reads the real home.
type testEnv struct {
	home, ws, xdgFile, wsFile string
	vars                      map[string]string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	return &testEnv{
		home:    home,
		ws:      ws,
		xdgFile: filepath.Join(home, ".config", "ckpt", "ckpt.yaml"),
		wsFile:  filepath.Join(ws, "ckpt.yaml"),
		vars:    map[string]string{"HOME": home},
	}
}

func (e *testEnv) getenv(k string) string { return e.vars[k] }

func (e *testEnv) load(fs *pflag.FlagSet) (*Config, error) {
	return Load(Options{Workspace: e.ws, Flags: fs, Env: e.getenv})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stringFlags returns a flag set with a string flag for every key (a string
// slice for ignore), parsed from args.
func stringFlags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	for _, k := range keys {
		if k.name == "ignore" {
			fs.StringSlice(flagName(k.name), nil, "")
		} else {
			fs.String(flagName(k.name), "unused-default", "")
		}
	}
	fs.String("unrelated", "", "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

// snake turns a Config field name into its key: MaxFileSize -> max_file_size.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// field returns the value of the Config field for key.
func field(c *Config, key string) any {
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		if snake(v.Type().Field(i).Name) == key {
			return v.Field(i).Interface()
		}
	}
	panic("no field for key " + key)
}
