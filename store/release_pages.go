package store

// ReleasePages drops the store's mapped table and value-log pages from
// this process (releaseMapped): for a caller that has just read through
// much of the store, such as a reconcile loading every entry, whose
// reads mapped most of the LSM tree's tables (78 MB of a 200,000-file
// daemon's RSS at its start, until a later write released them). The
// pages stay in the page cache; a later read maps them again.
func (s *Store) ReleasePages() { s.releaseLogPages() }
