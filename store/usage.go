package store

import (
	"sort"

	"github.com/dgraph-io/badger/v4"
)

// RecordUsage is what one kind of record takes in the store: how many keys,
// and their key and value bytes as written (before Badger's own block
// compression; a value in the value log counts its length).
type RecordUsage struct {
	Kind       string
	Keys       int
	KeyBytes   int64
	ValueBytes int64
}

// Usage sums every live key of the store by record kind (the key's prefix;
// blob chunks by codec, read from each chunk's first byte), largest first.
// It reads every blob chunk's first byte, so it costs a read of the store:
// a diagnostic (the storage bench), not something commands call.
func (s *Store) Usage() ([]RecordUsage, error) {
	by := map[string]*RecordUsage{}
	err := s.View(func(r *Reader) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		it := r.txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			kind, err := usageKind(item)
			if err != nil {
				return err
			}
			u := by[kind]
			if u == nil {
				u = &RecordUsage{Kind: kind}
				by[kind] = u
			}
			u.Keys++
			u.KeyBytes += int64(len(item.Key()))
			u.ValueBytes += item.ValueSize()
		}
		return nil
	})
	out := make([]RecordUsage, 0, len(by))
	for _, u := range by {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].KeyBytes+out[i].ValueBytes > out[j].KeyBytes+out[j].ValueBytes
	})
	return out, err
}

var usageNames = map[byte]string{
	prefixEntry: "entry", prefixJournal: "journal", prefixPath: "path index",
	prefixCheckpoint: "checkpoint", prefixCkptBySeq: "checkpoint by seq",
	prefixRun: "run", prefixTool: "tool window", prefixMeta: "meta",
	prefixReview: "review", prefixDeltaRef: "delta ref", prefixReplica: "replica mark",
}

var codecNames = map[byte]string{
	codecRaw: "blob raw", codecZstd: "blob zstd", codecDelta: "blob delta", codecS2: "blob s2",
	codecZstdDict: "blob zstd+dict",
}

func usageKind(item *badger.Item) (string, error) {
	k := item.Key()
	if len(k) == 0 {
		return "empty key", nil
	}
	if k[0] != prefixBlob {
		if n, ok := usageNames[k[0]]; ok {
			return n, nil
		}
		return "other " + string(k[:1]), nil
	}
	kind := "blob ?"
	err := item.Value(func(v []byte) error {
		if len(v) > 0 {
			if n, ok := codecNames[v[0]]; ok {
				kind = n
			}
		}
		return nil
	})
	return kind, err
}
