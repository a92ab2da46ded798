// Package store owns ckpt's on-disk database: one Badger database per
// workspace, and every key layout in it. It is the only package that imports
// Badger.
//
// # Key layout
//
// Every key starts with one byte that names its record:
//
//	'b' H1 H2 size chunk   blob chunk: compressed file content, content-addressed
//	'd' blob base          delta index of stores written before chunks were
//	                       marked: blob (H1 H2 size) is stored as a delta
//	                       against base (H1 H2 size); no value; no longer written
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
//	'x' remote 0x00 name   a replicator's marks (replica.go): cursor, stored
//	                       blobs, runs sent; pruning leaves them alone
//	'z'                    sentinel Reclaim writes, then drops to flush
//	                       Badger's memtables (never there for long)
//
// Integers in keys are big-endian so that byte order is numeric order. Paths
// never contain NUL, so 0x00 separates them from what follows.
//
// A blob's key is the content's 128-bit hash (xxhash64 with two seeds) plus
// its size, so two different contents are never confused on a hash hit: a
// collision would need both 64-bit hashes and the size to agree. Blobs are
// compressed with zstd and split into chunks of ChunkSize so that no value
// outgrows a value-log file. A chunk's first byte is its codec: raw, zstd,
// delta, or S2: a first import stores its contents with S2 (EncodeBlobFast,
// a tenth of zstd's CPU), marks those chunks with Badger's user-meta byte,
// and Recompress rewrites them as zstd later (the daemon does, paced, once
// it is ready). Every codec reads back the same way, so stores written
// before S2 read as they did.
//
// # Deltas
//
// Most new contents are small edits of a file's previous version, so a
// content that fits one chunk may be stored as a delta against the
// previous version's blob (its base): copies from the base and the new
// bytes (delta.go: git's block-index delta), zstd-compressed when that
// pays. Its chunk holds the base's hash and the chain depth (1 against a
// whole blob, one more than the base's otherwise). Capture passes the
// previous version (snapshot's encode); EncodeBlobAgainst keeps the delta
// only when it is less than half of the plain encoding, and never against
// a base that is missing or over one chunk. The version after a base
// maxDeltaDepth (16) deep is a delta against the whole blob at its chain's
// root (depth 1 again: its delta spans every edit since the root), or
// whole, starting a new chain, once that is not small. The contents a
// capture last encoded are kept in memory (recent.go, 4 MiB at most) as
// the next version's base, so a file edited again is not rebuilt down its
// chain for it; an entry is used only once a lookup shows its blob still
// stored at the depth remembered. Reading walks the
// chain down to the whole blob with one lookup per link, then applies the
// deltas on the way back up (at most maxDeltaDepth of them, each a copy
// of the content; a longer or inconsistent chain is an error, so a
// corrupt store cannot make a read loop).
//
// A zstd dictionary (the base as a raw dictionary) was measured first: it
// compresses as well, but the library builds an encoder per dictionary,
// 0.4 ms and 700 KB of allocations per file, against 15 us for this delta.
//
// Keys stay the hashes of the whole contents, so dedup and HasBlob are
// unchanged: a stored delta's base is never deleted while the delta is
// kept, so HasBlob still means "can be read". PutBlob checks that a
// delta's base is stored before it writes its chunk. Each chunk's Badger
// user-meta byte says its encoding (recompress.go: the first import's,
// delta, final, plain), so Recompress, Repack and pruning find what they
// need from the keys, without reading the value log.
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
// entry or restore intent refers to, except the bases (down the whole
// chain) of the deltas it keeps, found from the chunks marked as deltas
// (their header) and the 'd' keys of older stores, and the 'd' keys of the
// deltas it deletes. Reclaim then gives
// the space back:
// in Badger a delete only frees a value once compaction has dropped the
// key's versions, and the value-log GC never rewrites the file being
// appended to, so it reopens the database (which flushes the memtables and
// starts a new value-log file: rotate.go), flattens the LSM tree and runs
// the value-log GC on every file at least a quarter garbage.
//
// # Durability
//
// Writes are not synced one by one. Sync makes everything written so far
// durable; callers call it before they acknowledge a checkpoint or persist a
// restore intent.
//
// # A full disk
//
// Badger writes its write-ahead logs (.mem), its value log (.vlog) and
// every new table through shared memory mappings of files it sized with
// ftruncate, which allocates no block. The file system allocates when a
// page is first written (tmpfs also when a hole is first read), and when
// it has no block left the page fault is a SIGBUS: the process dies
// without Badger seeing an error. So the store never lets Badger write
// into space that may not be there (space.go):
//
//   - every commit, the first write of a lazily opened store and Reclaim
//     first check the free space (statfs): the write's bytes twice (log
//     and value log) plus WriteHeadroom (a memtable flush and the
//     compaction it starts) must be free, else the write fails with a
//     FullError ("the state directory is full: N MiB free at DIR"),
//     which matches syscall.ENOSPC, and Badger is not called;
//   - a reserve file of ReserveSize, allocated with fallocate at the
//     first write, is given back when a close (which flushes the
//     memtable) or a read-write open (which replays and flushes an
//     unclosed session's logs) finds too little room for the flush
//     (flushNeed: what the logs hold); writes need it back first. If even
//     that is too little, a close syncs the logs and leaves the database
//     as a crash would, and the next open replays it;
//   - before Badger maps anything, the logs of an unclosed session are
//     cut at their first hole (trimLogs), so that the replay never reads
//     an unbacked page.
//
// The check and the write are not atomic: another process may take the
// last blocks in between, and Badger's background compactions are not
// checked one by one. The headroom makes that window small; closing it
// would take Badger allocating (fallocate) what it maps.
//
// # Short-lived processes
//
// The daemon opens its store once (Open). An embedded ckpt command opens
// it for one command (OpenLazy), and what Badger does at every read-write
// open and close would otherwise outweigh the command: it starts a new
// memtable log and a new value-log file (sparse files that the kernel
// zero-fills a read-ahead window of at their first page fault, and that
// close truncates again), flushes the memtable into a new level-0 table,
// and never merges value-log files. So OpenLazy opens the database
// read-only, and reopens it read-write at the first write, which a command
// that finds nothing changed never makes. The reopened session then:
//
//   - keeps values up to ShortValueThreshold (1 MiB) in the LSM tree, so
//     that its writes leave no value-log file behind (at ValueThreshold,
//     every command that stored a content left one, and every later open
//     mapped and synced them all);
//   - compacts level 0 at close once it holds l0CompactAt tables: Badger's
//     compactors start up to a second after an open, after most commands
//     are over, so level 0 would otherwise grow by a table per command.
//
// The first import and the daemon keep ValueThreshold (256 bytes): there
// the value log spares the contents the LSM tree's rewrites. A
// value stays where it was written; Badger marks each as inline or as a
// value-log pointer. Retention (Reclaim) still shrinks the store: the
// compaction that drops deleted keys drops inline values with them, and the
// value-log GC rewrites the value-log files.
package store
