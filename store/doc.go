// Package store owns ckpt's on-disk database: one Badger database per
// workspace, and every key layout in it. It is the only package that imports
// Badger.
//
// # Key layout
//
// Every key starts with one byte that names its record:
//
//	'b' H1 H2 size chunk   blob chunk: compressed file content, content-addressed
//	'e' path               entry: the path's current State
//	'j' seq                journal: one Change (path, kind, new State, attribution)
//	'p' path 0x00 seq      path index: the path's State as of journal seq
//	'c' id                 checkpoint record
//	'k' seq ord            checkpoints in journal order (value: id)
//	'r' session 0x00 run   run baseline
//	't' session 0x00 run 0x00 call   tool window
//	'm' name               workspace metadata (head seq, live fingerprint,
//	                       workspace state, active attribution, restore
//	                       intent, last restore)
//	'z'                    sentinel Reclaim writes, then drops to flush
//	                       Badger's memtables (never there for long)
//
// Integers in keys are big-endian so that byte order is numeric order. Paths
// never contain NUL, so 0x00 separates them from what follows.
//
// A blob's key is the content's 128-bit hash (xxhash64 with two seeds) plus
// its size, so two different contents are never confused on a hash hit: a
// collision would need both 64-bit hashes and the size to agree. Blobs are
// compressed with zstd and split into chunks so that no value outgrows a
// value-log file.
//
// "State of path P at seq S" is one reverse seek in the path index from
// 'p' P 0x00 S. The journal is append-only; nothing in it is rewritten.
//
// # Pruning
//
// Pruning (prune.go) deletes checkpoint records, then forgets the history
// below the oldest one left (the floor): journal entries with seq <= floor,
// and each path's path-index entries older than its newest one at or below
// the floor (that one too when it is Absent), so the state of every path at
// every seq >= floor is unchanged; then blobs that no path-index entry,
// entry or restore intent refers to. Reclaim then gives the space back:
// in Badger a delete only frees a value once compaction has dropped the
// key's versions, so it flushes the memtables, flattens the LSM tree and
// runs the value-log GC.
//
// # Durability
//
// Writes are not synced one by one. Sync makes everything written so far
// durable; callers call it before they acknowledge a checkpoint or persist a
// restore intent.
package store
