// Package fsutil is the file-system plumbing that several layers of ckpt
// share and that must behave the same everywhere: the name prefix of
// ckpt's own files in a workspace, the advisory lock (flock) that keeps
// one process on a store, a state directory or a hook's state, and the
// atomic replacement of a file (temp file, fsync, rename), and StatInfo,
// a raw stat as an fs.FileInfo (the walk's fstatat, the import's fstat).
//
// It sits at the bottom of the graph with package fault and imports
// nothing else of ckpt. Writes into a workspace go through an os.Root (no
// write can leave the workspace, whatever the symlinks say); WriteAtomic
// therefore takes one, and a caller outside a workspace opens the root on
// the file's directory.
package fsutil
