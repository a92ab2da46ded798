package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// -storage-usage: what fills a kept state directory, by record kind.
//
//	go run ./bench -storage -storage-turns=500 -storage-modules= -keep -work /tmp/w
//	go run ./bench -storage-usage /tmp/w/storage/turns-daemon/state
var storageUsageDir = flag.String("storage-usage", "", "print what fills the stores under this state directory, by record kind (keys and bytes as written, before Badger's block compression), and exit; no process may hold them")

// printStoreUsage opens each workspace's store under state read-only and
// prints its records by kind.
func printStoreUsage(w io.Writer, state string) error {
	dirs, err := filepath.Glob(filepath.Join(state, "workspaces", "*"))
	if err != nil {
		return err
	}
	for _, dir := range dirs {
		if fi, err := os.Stat(filepath.Join(dir, "db")); err != nil || !fi.IsDir() {
			continue
		}
		st, err := store.OpenLazy(dir, time.Second)
		if err != nil {
			return err
		}
		usage, err := st.Usage()
		st.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nstore %s (du %s):\n\n| record | keys | key bytes | value bytes | total |\n|---|---|---|---|---|\n", dir, fmtBytes(storeUsage(state)))
		var keys int
		var kb, vb int64
		for _, u := range usage {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d |\n", u.Kind, u.Keys, u.KeyBytes, u.ValueBytes, u.KeyBytes+u.ValueBytes)
			keys, kb, vb = keys+u.Keys, kb+u.KeyBytes, vb+u.ValueBytes
		}
		fmt.Fprintf(w, "| all | %d | %d | %d | %d |\n", keys, kb, vb, kb+vb)
	}
	return nil
}

// printStoreFiles lists the files of each store under state, with what du
// counts (allocated blocks) beside their apparent size: Badger sizes its
// logs with ftruncate, so the two differ for files it has not filled.
func printStoreFiles(w io.Writer, state, when string) {
	dbs, _ := filepath.Glob(filepath.Join(state, "workspaces", "*", "db"))
	for _, db := range dbs {
		ents, err := os.ReadDir(db)
		if err != nil {
			continue
		}
		fmt.Fprintf(w, "\nfiles of %s %s (du bytes / apparent bytes):\n", db, when)
		var du, size int64
		for _, e := range ents {
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			n := diskUsage(filepath.Join(db, e.Name()))
			fmt.Fprintf(w, "  %-16s %10d %10d\n", e.Name(), n, info.Size())
			du, size = du+n, size+info.Size()
		}
		fmt.Fprintf(w, "  %-16s %10d %10d\n", "all", du, size)
	}
}
