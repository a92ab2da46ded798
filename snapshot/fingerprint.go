package snapshot

import (
	"encoding/binary"
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/ckptdev/ckpt/store"
)

// term is one path's share of the workspace fingerprint:
// xxhash64(path, 0, content hash, mode), where mode is the file type and
// executable bit.
func term(path string, st store.State) uint64 {
	if !st.Exists() {
		return 0
	}
	b := make([]byte, 0, len(path)+10)
	b = append(b, path...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint64(b, st.Hash.H1)
	switch {
	case st.Kind == store.Symlink:
		b = append(b, 'l')
	case st.Exec():
		b = append(b, 'x')
	default:
		b = append(b, 'f')
	}
	return xxhash.Sum64(b)
}

// roll moves a fingerprint from one state of path to another.
func roll(fp store.Fingerprint, path string, from, to store.State) store.Fingerprint {
	fp.Sum = fp.Sum - term(path, from) + term(path, to)
	if from.Exists() {
		fp.Count--
	}
	if to.Exists() {
		fp.Count++
	}
	return fp
}

// FormatFingerprint renders a fingerprint as the string people and runtimes
// see: the sum in hex and the file count.
func FormatFingerprint(sum uint64, count int64) string {
	return fmt.Sprintf("%016x:%d", sum, count)
}
