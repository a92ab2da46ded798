package store

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// TestFinalEncoderMemory checks what the final encoding's encoder holds
// once it has encoded a few small contents one after another, as
// Recompress does: one encoder, with a history of a chunk. With one
// encoder per core at zstd's default window, each grew a history of 8 MiB
// (the codecs held 32 MiB here, 12 now).
func TestFinalEncoderMemory(t *testing.T) {
	var raw bytes.Buffer
	for i := range 4000 {
		fmt.Fprintf(&raw, "func f%d() int { return %d } // dictionary of TestFinalEncoderMemory\n", i, i*7)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := newZdict(dictID(raw.Bytes()), raw.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		c := []byte(fmt.Sprintf("package f\n\nfunc f%d() int { return %d }\n", i, i))
		if out := compressFinal(c, d); len(out) == 0 {
			t.Fatal("no output")
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(d)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("the dictionary's codecs hold %.1f MiB", float64(held)/(1<<20))
	if held > 16<<20 {
		t.Errorf("the final encoding's codecs hold %.1f MiB after 8 small contents, want at most 16", float64(held)/(1<<20))
	}
}
