// Package peercred reads the uid of the process at the other end of a unix
// socket connection (SO_PEERCRED): the daemon checks who connects, the
// client who serves.
package peercred

import (
	"net"

	"golang.org/x/sys/unix"
)

// UID is the uid of the process at the other end (SO_PEERCRED).
func UID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var credErr error
	err = raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
