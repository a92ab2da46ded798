package store

import (
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Tuning for a store that mostly holds file contents. The figures come from
// BenchmarkImport and the bench/ harness (see BENCHMARKS.md): small
// memtables keep the daemon's memory and the embedded client's start-up low;
// values over ValueThreshold go to the value log so that the LSM tree holds
// only keys, entries and pointers.
var (
	MemTableSize     int64 = 8 << 20
	ValueThreshold   int64 = 4 << 10
	ValueLogFileSize int64 = 64 << 20
	BlockCacheSize   int64 = 8 << 20
	IndexCacheSize   int64 = 8 << 20
)

func badgerOptions(dir string) badger.Options {
	return badger.DefaultOptions(dir).
		WithLogger(nil).
		WithSyncWrites(false).
		WithNumVersionsToKeep(1).
		WithDetectConflicts(false).
		WithCompression(options.ZSTD).WithZSTDCompressionLevel(1).
		WithMemTableSize(MemTableSize).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithValueThreshold(ValueThreshold).
		WithValueLogFileSize(ValueLogFileSize).
		WithBlockCacheSize(BlockCacheSize).
		WithIndexCacheSize(IndexCacheSize).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false)
}
