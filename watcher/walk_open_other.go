//go:build !unix

package watcher

import "os"

func openDir(name string) (*os.File, error) { return os.Open(name) }
