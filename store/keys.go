package store

import (
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"

	"github.com/ckptdev/ckpt/fault"
)

// ErrNotFound is returned for a record that does not exist.
var ErrNotFound = fault.Sentinel(fault.NotFound, "not found")

const (
	prefixBlob       = 'b'
	prefixEntry      = 'e'
	prefixJournal    = 'j'
	prefixPath       = 'p'
	prefixCheckpoint = 'c'
	prefixCkptBySeq  = 'k'
	prefixRun        = 'r'
	prefixTool       = 't'
	prefixMeta       = 'm'
)

const (
	metaHead        = "head"
	metaFingerprint = "fingerprint"
	metaWorkspace   = "workspace"
	metaActive      = "active"
	metaIntent      = "intent"
	metaLastRestore = "last_restore"
	metaOrd         = "ord"
)

func entryKey(path string) []byte { return append([]byte{prefixEntry}, path...) }

func journalKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixJournal}, seq)
}

func pathKey(path string, seq uint64) []byte {
	b := make([]byte, 0, len(path)+10)
	b = append(b, prefixPath)
	b = append(b, path...)
	b = append(b, 0)
	return binary.BigEndian.AppendUint64(b, seq)
}

func blobKey(h Hash, chunk uint32) []byte {
	b := make([]byte, 0, 29)
	b = append(b, prefixBlob)
	b = binary.BigEndian.AppendUint64(b, h.H1)
	b = binary.BigEndian.AppendUint64(b, h.H2)
	b = binary.BigEndian.AppendUint64(b, uint64(h.Size))
	return binary.BigEndian.AppendUint32(b, chunk)
}

func checkpointKey(id string) []byte { return append([]byte{prefixCheckpoint}, id...) }

func ckptBySeqKey(seq, ord uint64) []byte {
	b := binary.BigEndian.AppendUint64([]byte{prefixCkptBySeq}, seq)
	return binary.BigEndian.AppendUint64(b, ord)
}

func runKey(session, run string) []byte {
	b := append([]byte{prefixRun}, session...)
	b = append(b, 0)
	return append(b, run...)
}

func toolKey(session, run, call string) []byte {
	b := append([]byte{prefixTool}, session...)
	b = append(b, 0)
	b = append(b, run...)
	b = append(b, 0)
	return append(b, call...)
}

func metaKey(name string) []byte { return append([]byte{prefixMeta}, name...) }

func getJSON(txn *badger.Txn, key []byte, v any) error {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(func(b []byte) error { return unmarshalRecord(b, v) })
}
