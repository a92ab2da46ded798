package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The repository's ckpt.yaml documents every key with its default. These
// tests keep it from drifting.
func TestRepoCkptYAMLIsTheDefaults(t *testing.T) {
	e := newTestEnv(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(Options{Workspace: root, Env: e.getenv})
	if err != nil {
		t.Fatal(err)
	}
	want := defaults(e.getenv, e.home)
	want.Files = []string{filepath.Join(root, "ckpt.yaml")}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("ckpt.yaml gives\n%+v\nwant the defaults\n%+v", c, want)
	}
}

func TestRepoCkptYAMLDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "ckpt.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")

	typ := reflect.TypeOf(Config{})
	fields := map[string]bool{}
	for i := 0; i < typ.NumField(); i++ {
		if name := typ.Field(i).Name; name != "Files" {
			fields[snake(name)] = true
		}
	}
	for _, k := range keys {
		if !fields[k.name] {
			t.Errorf("key %s has no Config field", k.name)
		}
	}
	for key := range fields {
		t.Run(key, func(t *testing.T) {
			if lookupKey(key) == nil {
				t.Errorf("Config field for %s has no key", key)
			}
			re := regexp.MustCompile(`^(# )?` + key + `: `)
			at := -1
			for i, l := range lines {
				if re.MatchString(l) {
					at = i
					break
				}
			}
			if at < 0 {
				t.Fatalf("ckpt.yaml does not document %s", key)
			}
			comments := 0
			for i := at - 1; i >= 0 && strings.HasPrefix(lines[i], "# "); i-- {
				comments++
			}
			if comments < 1 || comments > 3 {
				t.Errorf("%s has %d comment lines above it, want 1 to 3", key, comments)
			}
		})
	}
}
