// Package remote replicates a workspace's store to S3-compatible object
// storage and reads it back: the object layout, client-side encryption,
// the one-writer lease, pushing (resumable, bounded), importing a replica
// into a fresh store, and extending a store whose history is a prefix of
// the replica's (Extend, for a pull). It talks S3 through minio-go.
//
// # Object layout
//
// Under the remote's prefix P (s3://bucket/P):
//
//	P/ckpt-remote.json              the format and, when encrypted, the key's id
//	P/blobs/<aa>/<name>             one file content; name is the hex SHA-256 of
//	                                the content (HMAC-SHA256 under the key when
//	                                encrypted), aa its first two digits; shared by
//	                                every workspace of the remote
//	P/ws/<w>/info                   the workspace's name (w is the name, or a
//	                                keyed hash of it when encrypted)
//	P/ws/<w>/lease                  the writer's lease (conditional writes)
//	P/ws/<w>/seg/<n>                journal segment n (16 hex digits): the journal
//	                                entries after the previous segment's last seq,
//	                                the checkpoints, runs and tool windows recorded
//	                                since, and the blob names of their contents
//	P/ws/<w>/ck/<ord>               one checkpoint's manifest (ord: 16 hex digits)
//
// Every object but a lease is written once and never changed: segments and
// manifests are written with If-None-Match: *, blobs are named by their
// content. A manifest is written only after the segment that holds its
// checkpoint, every earlier segment and every blob they name are stored:
// a checkpoint with a manifest is replicated.
//
// # Pushing
//
// A push reads the store in one read transaction (it never holds the
// workspace's lock, so capture and checkpoints go on), uploads the blobs
// the next segment names that the store has not marked as stored (HEAD,
// then PUT), with a bounded number of requests and bytes in flight and an
// optional bandwidth limit, then the segment, then the manifests, then
// records its cursor (the last seq, checkpoint order and segment number)
// and the blob marks in the store. A push that dies anywhere repeats at
// most the last segment: a segment number already taken is read back and
// adopted (one writer, holding the lease, wrote it).
package remote
