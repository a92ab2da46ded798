package store

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFile is this process's resident file-backed memory (RssFile), bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == "RssFile" {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestWritesDoNotStayResident: 96 MiB of incompressible contents written
// through the store (Badger writes its value log through a shared
// mapping) do not stay in the process's resident set: the store gives the
// mapped pages back as it commits. Before it did, RssFile grew by what was
// written. The contents still read back whole.
func TestWritesDoNotStayResident(t *testing.T) {
	s := openTestStore(t)
	before := rssFile(t)
	r := rand.New(rand.NewPCG(1, 2))
	var hashes []Hash
	const files, size = 96, 1 << 20
	for range files {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		h := HashBytes(b)
		hashes = append(hashes, h)
		if err := s.Write(func(w *Writer) error { return w.PutBlob(h, EncodeBlob(b)) }); err != nil {
			t.Fatal(err)
		}
	}
	grown := rssFile(t) - before
	if grown > 48<<20 {
		t.Errorf("after writing %d MiB the resident file-backed memory grew by %d MiB; want the mapped pages given back (under 48 MiB)", files*size>>20, grown>>20)
	}
	if err := s.View(func(rd *Reader) error {
		for _, h := range hashes[:4] {
			b, err := rd.Blob(h)
			if err != nil {
				return err
			}
			if HashBytes(b) != h {
				t.Errorf("blob %v read back different", h)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
