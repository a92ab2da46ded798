package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// repackSource is a small Go file that shares its licence header and
// idioms with the others, as the files of a source tree do.
func repackSource(i int, tag string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Copyright 2026 The Example Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style licence\n// that can be found in the LICENSE file.\n\npackage p%d\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n)\n\n", i%9)
	for j := range 12 + i%7 {
		fmt.Fprintf(&b, "// put%d%s stores record %d of the %s table.\nfunc (w *Writer) put%d%s(ctx context.Context, seq uint64) error {\n\tif err := ctx.Err(); err != nil {\n\t\treturn fmt.Errorf(\"put %d: %%w\", err)\n\t}\n\treturn errors.New(\"record %d\")\n}\n\n",
			j, tag, (i*j*7919)%10007, tag, j, tag, i*j, (i*31+j)%997)
	}
	return b.String()
}

// TestGCRepacksContents: ckpt gc rewrites the contents captures stored (at
// zstd's fastest level, each file alone) in the final encoding (a better
// level, against a dictionary of the store's own files): the space they
// take drops by a fifth at least, and every file, old and new, restores
// byte for byte afterwards (a new process reading the rewritten contents).
func TestGCRepacksContents(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		want := map[string]string{}
		for i := range 150 {
			rel := fmt.Sprintf("old/p%d/f%03d.go", i%9, i)
			want[rel] = repackSource(i, "Old")
			ws.write(rel, want[rel])
		}
		ws.start()
		if m == daemon {
			ws.waitRecompressed()
		}
		ws.ckptOK("gc") // the import's contents in the final encoding, the space settled
		settled := storeDU(t, ws.state)
		for i := range 300 {
			rel := fmt.Sprintf("new/p%d/g%03d.go", i%9, i)
			want[rel] = repackSource(i+1000, "New")
			ws.write(rel, want[rel])
		}
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint", "-m", "new files")
		before := storeDU(t, ws.state)
		var gc gcJSON
		ws.ckptJSON(&gc, "gc")
		after := storeDU(t, ws.state)
		t.Logf("store: %d settled, %d with the new files, %d after ckpt gc (gc says %d -> %d)", settled, before, after, gc.BytesBefore, gc.BytesAfter)
		if grew, kept := before-settled, after-settled; grew <= 0 || kept*5 > grew*4 {
			t.Errorf("the new files took %d bytes of the store, still %d after ckpt gc: want a fifth less at least", grew, kept)
		}
		ws.restoresExactly(cp.CheckpointID, want, "after ckpt gc")
	})
}
