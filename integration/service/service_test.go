package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServiceUnit(t *testing.T) {
	unit, err := Unit(Options{
		Executable: "/opt/ckpt/bin/ckptd",
		Dirs:       []string{"/home/me/proj", "/home/me/my project", `/home/me/100%$HOME`},
		Env:        map[string]string{"CKPT_STATE_DIR": "/home/me/state dir"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`ExecStart=/opt/ckpt/bin/ckptd watch /home/me/proj "/home/me/my project" /home/me/100%%$$HOME`,
		`Environment="CKPT_STATE_DIR=/home/me/state dir"`,
		"Restart=on-failure",
		"StandardError=journal",
		"WantedBy=default.target",
	} {
		if !strings.Contains(unit, "\n"+line+"\n") {
			t.Errorf("the unit lacks the line %s:\n%s", line, unit)
		}
	}
	if _, err := Unit(Options{Executable: "ckptd"}); err == nil {
		t.Error("a relative executable was accepted")
	}
	if _, err := Unit(Options{Executable: "/bin/ckptd", Dirs: []string{"rel"}}); err == nil {
		t.Error("a relative workspace was accepted")
	}
}

func TestSystemdQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/plain/path", "/plain/path"},
		{"with space", `"with space"`},
		{`back\slash`, `"back\\slash"`},
		{`say "hi"`, `"say \"hi\""`},
		{"50%", "50%%"},
		{"$HOME", "$$HOME"},
		{"", `""`},
	}
	for _, tt := range tests {
		if got := systemdQuote(tt.in); got != tt.want {
			t.Errorf("systemdQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestServicePath(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"XDG_CONFIG_HOME", map[string]string{"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/me"}, "/cfg/systemd/user/ckptd.service"},
		{"default under HOME", map[string]string{"HOME": "/home/me"}, "/home/me/.config/systemd/user/ckptd.service"},
		{"a relative XDG_CONFIG_HOME is ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "HOME": "/home/me"}, "/home/me/.config/systemd/user/ckptd.service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Path(env(tt.env))
			if err != nil || got != tt.want {
				t.Fatalf("ServicePath = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := Path(env(nil)); err == nil {
		t.Error("no HOME and no XDG_CONFIG_HOME: no error")
	}
}

func TestWriteService(t *testing.T) {
	path := filepath.Join(t.TempDir(), "systemd", "user", Name)
	for _, text := range []string{"first\n", "second\n"} {
		if err := Write(path, text); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != text {
			t.Fatalf("unit file %q, %v; want %q", b, err, text)
		}
	}
}
