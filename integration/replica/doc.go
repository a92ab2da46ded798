// Package replica puts store/remote to work for the commands and the
// daemon: it opens the configured remote, pushes a workspace (ckpt push),
// fast-forwards one from it (ckpt pull), clones one into a fresh directory (ckpt clone), lists a remote (ckpt
// remote ls), and runs the daemon's continuous replication of each
// workspace (Replicator), and says what retention must keep for the
// remote (RetentionHold). It keeps each workspace's replication status in
// a small file next to its store (replication.json), which ckpt status and
// ckpt log read whichever process replicates. No algorithm lives here.
package replica
