package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestImportSilentOffTerminal: with stderr a pipe (as under go test, in
// scripts and under systemd) there is no bar at all.
func TestImportSilentOffTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(w) {
		t.Fatal("a pipe is reported as a terminal")
	}
	saved := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = saved }()
	if Import("ws") != nil {
		t.Error("Import returned a progress callback with stderr a pipe")
	}
}

// TestImportBar: the bar names what is imported, counts files, and ends
// its line when the import is done.
func TestImportBar(t *testing.T) {
	var out bytes.Buffer
	report := importBar(&out, "/tmp/ws")
	for done := 0; done <= 3000; done += 500 {
		report(done, 3000)
	}
	got := out.String()
	for _, want := range []string{"importing /tmp/ws", "3000/3000"} {
		if !strings.Contains(got, want) {
			t.Errorf("the bar's output %q does not contain %q", got, want)
		}
	}
	if !strings.HasSuffix(got, "\n") {
		t.Errorf("the bar's output %q does not end its line when done", got)
	}
}
