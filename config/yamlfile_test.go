package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// yamlCorpus is config files of every shape: valid, typed oddly, nested,
// in other cases, malformed.
var yamlCorpus = []string{
	"",
	"# only a comment\n",
	"~\n",
	"ignore: [a, b]\nmax_file_size: 10MiB\n",
	"IGNORE:\n  - '*.log'\nDebounce: 5ms\n",
	"ignore:\n",
	"ignore: []\n",
	"ignore: {}\n",
	"ignore: {x: 1}\n",
	"ignore: [a, {B: c}]\n",
	"ignore: [[a]]\n",
	"ignore: '*.tmp'\n",
	"max_file_size: 1.5\n",
	"max_file_size: 100\n",
	"max_file_size: -1\n",
	"max_file_size: [1]\n",
	"debounce: 2001-01-01\n",
	"debounce: 30d\n",
	"queue_size: 0x10\n",
	"queue_size: 1e3\n",
	"autostart: yes\n",
	"autostart: off\n",
	"autostart: 1\n",
	"log_level: DEBUG\n",
	"log_level: loud\n",
	"state_dir: ~/s\n",
	"state_dir: rel/dir\n",
	"socket: /run/x.sock\n",
	"remote: s3://b/p\nremote_bandwidth: 1MiB\n",
	"ui_addr: 0.0.0.0:80\n",
	"unknown_key: 1\n",
	"a.b: 1\n",
	"1: x\n",
	"true: x\n",
	"- a\n- b\n",
	"just a string\n",
	"ignore: [a\n",
	"ignore: a\nignore: b\n",
	"\tignore: a\n",
	"---\nignore: [a]\n---\nignore: [b]\n",
	"anchors: &x [a]\nignore: *x\n",
	"ignore: !!binary aGVsbG8=\n",
	"retention: !!str 5\n",
	"max_delay: null\nlock_timeout: ~\n",
	"debounce: {a: {b: {c: 1}}}\n",
}

// sameLayer reports how fileLayer and the viper reading differ on a file.
func sameLayer(t *testing.T, path string) {
	t.Helper()
	got, gotOK, gotErr := fileLayer(path)
	want, wantOK, wantErr := viperFileLayer(path)
	if gotErr != nil && strings.Contains(gotErr.Error(), "set twice") {
		return // the one case viper decided at random (map order)
	}
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("error %v, viper's %v", gotErr, wantErr)
	}
	if gotOK != wantOK || !reflect.DeepEqual(got.raw, want.raw) || got.base != want.base {
		t.Fatalf("read %v %#v (base %q), viper read %v %#v (base %q)", gotOK, got.raw, got.base, wantOK, want.raw, want.base)
	}
}

// TestFileLayerReadsAsViperDid: ckpt reads its YAML files without viper,
// as it read them with it, key for key and error for error.
func TestFileLayerReadsAsViperDid(t *testing.T) {
	dir := t.TempDir()
	for _, content := range yamlCorpus {
		path := filepath.Join(dir, "ckpt.yaml")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSpace(content), func(t *testing.T) { sameLayer(t, path) })
	}
	t.Run("missing", func(t *testing.T) { sameLayer(t, filepath.Join(dir, "none.yaml")) })
	t.Run("directory", func(t *testing.T) { sameLayer(t, dir) })
}

// TestCaseDuplicateIsAnError: a key written twice in different cases is
// refused, naming both spellings and the file (viper kept one at random).
func TestCaseDuplicateIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ckpt.yaml")
	writeFile(t, path, "ignore: [a]\nIgnore: [b]\n")
	_, _, err := fileLayer(path)
	if err == nil || err.Error() != `config: ignore in `+path+`: set twice, as "Ignore" and "ignore" (keys are case-insensitive)` {
		t.Fatalf("got %v", err)
	}
}

// TestLoadAsViperDid: Load gives the Config, or the error, that the viper
// merge gave, for the same files, environment and flags.
func TestLoadAsViperDid(t *testing.T) {
	envs := []map[string]string{
		{},
		{"CKPT_IGNORE": "x, y", "CKPT_DEBOUNCE": "1s"},
		{"CKPT_SOCKET": "rel.sock", "CKPT_STATE_DIR": "/st"},
		{"CKPT_MAX_FILE_SIZE": "nope"},
		{"XDG_CONFIG_HOME": "relative"},
		{"CKPT_AUTOSTART": "false", "CKPT_REMOTE": "s3://b"},
	}
	flagSets := [][]string{nil, {"--ignore", "f1,f2", "--state-dir", "/fs"}, {"--socket", "/s.sock", "--debounce", "3ms"}}
	for i, user := range yamlCorpus {
		for j, ws := range []string{"", "ignore: [w]\n", "state_dir: /x\n", yamlCorpus[(i*7+3)%len(yamlCorpus)]} {
			e := newTestEnv(t)
			writeFile(t, e.xdgFile, user)
			if ws != "" {
				writeFile(t, e.wsFile, ws)
			}
			for k, vars := range envs {
				for l, args := range flagSets {
					for n, v := range vars {
						e.vars[n] = v
					}
					fs := stringFlags(t, args...)
					got, gotErr := e.load(fs)
					want, wantErr := viperLoad(Options{Workspace: e.ws, Flags: stringFlags(t, args...), Env: e.getenv})
					for n := range vars {
						delete(e.vars, n)
					}
					if gotErr != nil && strings.Contains(gotErr.Error(), "set twice") {
						continue
					}
					if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
						t.Fatalf("file %d/%d env %d flags %d: error %v, viper's %v", i, j, k, l, gotErr, wantErr)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("file %d/%d env %d flags %d: %+v, viper's %+v", i, j, k, l, got, want)
					}
				}
			}
		}
	}
}

// FuzzFileLayerReadsAsViperDid: any bytes read as a config file give the
// keys, values and errors that viper gave.
func FuzzFileLayerReadsAsViperDid(f *testing.F) {
	for _, c := range yamlCorpus {
		f.Add([]byte(c))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "ckpt.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sameLayer(t, path)
	})
}
