// Package statedir owns the state directory's layout and safety: where a
// workspace's store lives under it (Key, StoreDir, Known) and the checks
// that make it fit to hold stores (PrepareStateDir). It imports nothing of
// the engine, so the thin ckpt client links it as the engine does.
package statedir
