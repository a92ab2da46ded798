package store

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestParseMapsLine: the in-place parse of /proc/PID/maps lines gives the
// range, sharing and path that splitting the line into fields gives, for
// every line of this process's maps and for lines of each shape.
func TestParseMapsLine(t *testing.T) {
	lines := []string{
		"7f1c2a000000-7f1c2e000000 rw-s 00000000 fd:01 1234567                    /tmp/st/db/000001.vlog",
		"7f1c2a000000-7f1c2a100000 r--s 00000000 fd:01 1234568                    /tmp/st/db/000002.sst",
		"7f1c2a000000-7f1c2a100000 r--p 00000000 fd:01 1234568                    /tmp/a dir/x.sst",
		"c000000000-c004000000 rw-p 00000000 00:00 0 ",
		"c000000000-c004000000 rw-p 00000000 00:00 0",
		"c000000000-c004000000 rw-p 00000000 00:00",
		"7ffd1b5e0000-7ffd1b601000 rw-p 00000000 00:00 0                          [stack]",
		"garbage",
		"zz-10 rw-s 0 0 0 /x.vlog",
	}
	if f, err := os.Open("/proc/self/maps"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		f.Close()
	}
	for _, line := range lines {
		start, end, shared, path, ok := parseMapsLine([]byte(line))
		wStart, wEnd, wShared, wPath, wOK := fieldsOf(line)
		if ok != wOK || (ok && (start != wStart || end != wEnd || shared != wShared || string(path) != wPath)) {
			t.Errorf("%q: got %x-%x shared=%v path=%q ok=%v, want %x-%x shared=%v path=%q ok=%v",
				line, start, end, shared, path, ok, wStart, wEnd, wShared, wPath, wOK)
		}
	}
}

// fieldsOf is the parse releaseMapped did before: strings.Fields (a path
// is one field here unless it holds spaces, which the kernel keeps).
func fieldsOf(line string) (start, end uint64, shared bool, path string, ok bool) {
	fields := strings.Fields(line)
	if len(fields) < 5 {
		return 0, 0, false, "", false
	}
	lo, hi, found := strings.Cut(fields[0], "-")
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	if !found || err1 != nil || err2 != nil || end <= start {
		return 0, 0, false, "", false
	}
	if len(fields) > 5 {
		path = strings.Join(fields[5:], " ")
	}
	return start, end, strings.Contains(fields[1], "s"), path, true
}

// BenchmarkReleaseMapped is one release of a store's value-log mappings,
// as the recompression does every 16 chunks it reads.
func BenchmarkReleaseMapped(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		releaseMapped(s.dbDir(), ".vlog")
	}
}
