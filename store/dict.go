package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"
)

// A store's contents are compressed one file at a time, and most files of
// a source tree are small: alone, zstd finds little to match in them. So
// the final encoding (what Recompress and Repack write, never a capture)
// compresses each whole content with zstd at SpeedBetterCompression
// against the store's dictionary: raw content sampled from the store
// (contents of other files, which share their idioms, names and licence
// headers), given to zstd as a raw dictionary. On terraform's 4,729 files
// that is 5.08 MB with a dictionary of 512 KiB (5.55 MB with 128 KiB),
// against 6.71 MB for each file alone at SpeedFastest.
//
// A dictionary is made once, from the first contents a Recompress or
// Repack rewrites, and kept for good under its id (the xxhash of its
// bytes): 'm' "zdict" id -> the dictionary, compressed as a chunk is.
// A chunk encoded against it is codecZstdDict, the id (8 bytes,
// big-endian), then the zstd frame.

// dictMaxSize bounds a dictionary; a store with less than dictMinShare
// times a dictionary's worth of content gets a smaller one, and none
// under dictMinSize (its cost, stored once, would not come back).
const (
	dictMaxSize  = 512 << 10
	dictMinSize  = 8 << 10
	dictMinShare = 16
	// dictPieceMax: only contents up to this size go into a dictionary
	// (a large file needs none, and would crowd out the small ones).
	dictPieceMax = 16 << 10
)

// finalLevel is the zstd level of the final encoding.
const finalLevel = zstd.SpeedBetterCompression

// finalEncoderOptions are the final encoding's encoder options. One
// encoder, not one per core: only Recompress and Repack encode at the
// final level, one chunk after another, and the encoders of a
// concurrency of two were handed out in turn, so both grew their history.
// Its window is a chunk (no content is longer): at zstd's default of 8
// MiB each history buffer was 8 MiB, however small the content. The two
// encoders at the final level (with and without the dictionary) held 33
// MB of a 200,000-file daemon's heap while it recompressed.
func finalEncoderOptions(more ...zstd.EOption) []zstd.EOption {
	return append([]zstd.EOption{zstd.WithEncoderLevel(finalLevel), zstd.WithEncoderCRC(false),
		zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(ChunkSize)}, more...)
}

const metaDict = "zdict"

func dictKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64(metaKey(metaDict), id)
}

// zdict is a loaded dictionary's codecs.
type zdict struct {
	id  uint64
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// dicts holds every dictionary loaded in this process, by id: ids are
// content hashes, so stores that share a process cannot confuse theirs.
var dicts sync.Map // uint64 -> *zdict

func newZdict(id uint64, raw []byte) (*zdict, error) {
	if d, ok := dicts.Load(id); ok {
		return d.(*zdict), nil
	}
	frameID := uint32(id) | 1 // zstd writes no id for 0
	enc, err := zstd.NewWriter(nil, finalEncoderOptions(zstd.WithEncoderDictRaw(frameID, raw))...)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(2*ChunkSize),
		zstd.WithDecoderDictRaw(frameID, raw))
	if err != nil {
		return nil, err
	}
	d, _ := dicts.LoadOrStore(id, &zdict{id: id, enc: enc, dec: dec})
	return d.(*zdict), nil
}

// loadDict loads the dictionary id from the store unless it is loaded.
func loadDict(txn *badger.Txn, id uint64) (*zdict, error) {
	if d, ok := dicts.Load(id); ok {
		return d.(*zdict), nil
	}
	item, err := txn.Get(dictKey(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("store: the compression dictionary %x is missing", id)
	}
	if err != nil {
		return nil, err
	}
	var raw []byte
	err = item.Value(func(v []byte) (err error) {
		raw, err = decodeChunk(nil, v)
		return err
	})
	if err == nil && xxhash.Sum64(raw) != id {
		err = fmt.Errorf("store: the compression dictionary %x is damaged", id)
	}
	if err != nil {
		return nil, err
	}
	return newZdict(id, raw)
}

// storeDict is the store's dictionary (the first one stored), or nil.
func storeDict(txn *badger.Txn) (*zdict, error) {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = metaKey(metaDict)
	it := txn.NewIterator(opts)
	defer it.Close()
	it.Rewind()
	if !it.Valid() {
		return nil, nil
	}
	k := it.Item().Key()
	if len(k) != len(opts.Prefix)+8 {
		return nil, fmt.Errorf("store: malformed dictionary key %q", k)
	}
	return loadDict(txn, binary.BigEndian.Uint64(k[len(opts.Prefix):]))
}

// makeDict builds a dictionary from contents (a sample of the store's,
// in no particular order), or returns nil when they are too few to pay
// for one.
func makeDict(contents [][]byte) []byte {
	total := 0
	for _, c := range contents {
		if len(c) <= dictPieceMax {
			total += len(c)
		}
	}
	size := min(dictMaxSize, total/dictMinShare)
	if size < dictMinSize {
		return nil
	}
	// Whole small contents from all over the sample: with a stride, so
	// that many files' idioms are in it, not the first few files.
	stride := max(1, total/size)
	raw := make([]byte, 0, size+dictPieceMax)
	for i, n := 0, 0; i < len(contents) && len(raw) < size; i++ {
		if c := contents[i]; len(c) <= dictPieceMax && len(c) > 0 {
			if n%stride == 0 {
				raw = append(raw, c...)
			}
			n++
		}
	}
	return raw[:min(len(raw), size)]
}

// finalEncoder is the zstd encoder of the final encoding when the store
// has no dictionary.
var finalEncoder = sync.OnceValue(func() *zstd.Encoder {
	enc, _ := zstd.NewWriter(nil, finalEncoderOptions()...)
	return enc
})

// compressFinal is content b in the final encoding: zstd at finalLevel,
// against d when there is one, or raw when that does not make it smaller.
func compressFinal(b []byte, d *zdict) []byte {
	var out []byte
	if d != nil {
		dst := binary.BigEndian.AppendUint64(append(make([]byte, 0, len(b)/3+16), codecZstdDict), d.id)
		out = d.enc.EncodeAll(b, dst)
	} else {
		out = finalEncoder().EncodeAll(b, append(make([]byte, 0, len(b)/3+16), codecZstd))
	}
	if len(out) > len(b) {
		out = append(append(out[:0], codecRaw), b...)
	}
	return out
}

// decodeDictChunk appends a codecZstdDict chunk's content to dst.
func decodeDictChunk(txn *badger.Txn, dst, v []byte) ([]byte, error) {
	if len(v) < 9 {
		return nil, errShort
	}
	d, err := loadDict(txn, binary.BigEndian.Uint64(v[1:]))
	if err != nil {
		return nil, err
	}
	into := dst
	if len(dst) > 0 {
		into = nil
	}
	part, err := d.dec.DecodeAll(v[9:], into)
	if err != nil {
		return nil, err
	}
	if len(dst) == 0 {
		return part, nil
	}
	return append(dst, part...), nil
}

func dictID(raw []byte) uint64 { return xxhash.Sum64(raw) }
