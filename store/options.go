package store

import (
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Tuning for a store that mostly holds file contents. The figures come from
// BenchmarkImport and the bench/ harness (see BENCHMARKS.md): small
// memtables keep the daemon's memory and the embedded client's start-up low;
// values over ValueThreshold go to the value log so that an import writes
// each content once, instead of again at every LSM compaction.
//
// MemTableSize bounds what Badger's table builders hold. Each memtable
// flush builds its level-0 table in an allocator that grows by doubling
// buffers until the whole table, and its compressed blocks, fit: up to
// four times the memtable (2+4+8+16 MiB for an 8 MiB one). Badger keeps up
// to eight of those allocators pooled, each as large as it ever grew, and
// hands them to the compactions' builders too, so during a 200,000-file
// import the builders' buffers grew to 90 MB of the heap with 8 MiB
// memtables, 75 MB with 4 MiB ones and 50 MB with 2 MiB ones (at 2 MiB
// every builder fits in 6 MiB).
//
// ValueThreshold sits just above the metadata records (journal entries,
// path-index states, checkpoints: 70-200 bytes), so that the LSM tree holds
// those and nearly every content is written once, to the value log. At
// 4 KiB the contents under it (a third of a source tree's files, 50 MB of a
// 40k-file tree) went through memtable flushes and every compaction, and
// Badger compressed their zstd frames again: a 40k-file import took 40%
// more CPU, and the daemon's compactions held 40 MB more memory.
var (
	MemTableSize     int64 = 2 << 20
	ValueThreshold   int64 = 256
	ValueLogFileSize int64 = 64 << 20
	BlockCacheSize   int64 = 8 << 20
	IndexCacheSize   int64 = 8 << 20
	// BaseTableSize is the size of every LSM table a compaction writes
	// (TableSizeMultiplier 1: the same at every level). Badger builds a
	// table in memory, in a buffer of twice its size, up to eight of them
	// at once per compaction, and pools up to eight buffers once done:
	// at its defaults (2 MiB, doubling per level) those buffers were
	// 100-130 MB of a 200,000-file import's heap.
	BaseTableSize int64 = 1 << 20
)

// numLevelZeroTables is how many level-0 tables start a compaction into
// level 1, and numLevelZeroTablesStall how many make a memtable flush wait
// for one. With 2 MiB memtables the level-0 tables are a quarter of what
// they were: at 2 of them, compactions into level 1 (which rewrite the part
// of level 1 they overlap, most of it for random keys) came four times as
// often, and took 9.5% of a 200,000-file import's CPU instead of 3.3%; at
// 8, level 0 holds as many bytes as before it compacts (7.5%).
var numLevelZeroTables, numLevelZeroTablesStall = 8, 16

// ShortValueThreshold is the value threshold of a store opened with
// OpenLazy once it writes. Badger starts a new value-log file at every
// read-write open and never merges them, so at ValueThreshold every
// embedded command that stored a content would leave a small
// file behind that every later open maps and every close syncs. At this
// threshold (Badger's largest) only chunks of over 1 MiB compressed reach
// the value log; everything else goes to the LSM tree, whose compaction
// merges it (see l0CompactAt). A value keeps the place it was written to:
// Badger marks each one as inline or as a value-log pointer.
var ShortValueThreshold int64 = 1 << 20

// ShortMemTableSize is the memtable of a store opened with OpenLazy once it
// writes: Badger takes no transaction over 15% of a memtable, and none
// could then hold a value of ShortValueThreshold.
var ShortMemTableSize int64 = 8 << 20

// l0CompactAt is how many level-0 tables a store opened with OpenLazy lets
// accumulate before it compacts them at Close. Badger's compactors start
// up to a second after an open, so they seldom run in a command that lasts
// tens of milliseconds, and every writing command flushes its memtable
// into one more level-0 table at Close: unchecked, every open, lookup and
// iteration pays for a growing number of tables. Compacting at every close
// would rewrite the overlapping part of the next level each time; every
// l0CompactAt-th one amortizes it. It stays below the stall count
// (NumLevelZeroTablesStall), at which a memtable flush waits for the
// compactors.
const l0CompactAt = 4

func badgerOptions(dir string) badger.Options {
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithSyncWrites(false).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(false).
		// Snappy, not zstd, for the LSM tree's blocks (journal, path index,
		// entries: the contents are zstd frames already, in the value log):
		// a profile of a 200,000-file import had 12.5% of its CPU in
		// Badger's zstd block compression and more in decompressing blocks
		// to compact them. Each table records its own compression, so
		// stores written with zstd blocks read as before.
		WithCompression(options.Snappy).
		WithMemTableSize(MemTableSize).
		WithNumMemtables(2).
		WithNumLevelZeroTables(numLevelZeroTables).
		WithNumLevelZeroTablesStall(numLevelZeroTablesStall).
		WithValueThreshold(ValueThreshold).
		WithValueLogFileSize(ValueLogFileSize).
		WithBlockCacheSize(BlockCacheSize).
		WithIndexCacheSize(IndexCacheSize).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false).
		WithBaseTableSize(BaseTableSize)
	opts.TableSizeMultiplier = 1
	return opts
}

// readOnlyOptions open the store for reading only: Badger then creates no
// file (a read-write open starts a new memtable log and a new value-log
// file, each a sparse file whose first page fault makes the kernel zero a
// whole read-ahead window, and truncates both again at close) and runs no
// compactor.
func readOnlyOptions(dir string) badger.Options {
	return badgerOptions(dir).WithReadOnly(true)
}

// shortWriteOptions reopen a lazily opened store for its first write.
func shortWriteOptions(dir string, compactL0 bool) badger.Options {
	return badgerOptions(dir).
		WithValueThreshold(ShortValueThreshold).
		WithMemTableSize(ShortMemTableSize).
		WithCompactL0OnClose(compactL0)
}
