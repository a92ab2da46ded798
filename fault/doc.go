// Package fault is ckpt's error vocabulary: the few kinds of failure that
// the layers above need to tell apart (bad input, not found, busy,
// conflict, storage full, refused), and nothing else.
//
// It sits at the bottom of the package graph and imports nothing of ckpt,
// so that every layer may use it: config and store mark their errors with
// a kind, snapshot and drift wrap without losing it, the socket API turns
// a kind into a status code and back, and each binary maps kinds to its
// exit codes in one place. A kind is tested with errors.Is, through any
// amount of fmt.Errorf("...: %w") wrapping:
//
//	if errors.Is(err, fault.Invalid) { ... exit 2 ... }
//
// A package keeps its own sentinels where callers tell them apart
// (snapshot.ErrBadID, store.ErrNotFound); such a sentinel is made with
// Sentinel, so that it is also of its kind. An error that already is of a
// kind is marked with Mark; its message is unchanged.
package fault
