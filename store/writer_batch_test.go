package store

import (
	"encoding/binary"
	"testing"
)

// A Write of many small records commits before Badger's transaction
// outgrows the number of entries it takes (15% of a memtable in skiplist
// nodes), not only before it outgrows its bytes: 30,000 deletes of short
// keys fit a batch by bytes, not by count.
func TestWriteOfManySmallRecordsCommitsByCount(t *testing.T) {
	s := openTestStore(t)
	const n = 30000
	err := s.Write(func(w *Writer) error {
		for i := range n {
			k := make([]byte, 9)
			k[0] = prefixReclaim
			binary.BigEndian.PutUint64(k[1:], uint64(i))
			if err := w.deleteKey(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("a Write of %d deletes: %v", n, err)
	}
}
