package client

import (
	"context"
	"fmt"
	"github.com/ckptdev/ckpt/integration/internal/peercred"
	"net"
	"os"

	"github.com/ckptdev/ckpt/fault"
)

// ErrForeignDaemon means the process serving the socket runs as another
// user. ckpt never talks to it: whoever that is could answer anything
// (fake changes, a restore that did nothing, text meant for an agent).
var ErrForeignDaemon = fault.Sentinel(fault.Refused, "the socket is served by another user")

// dialOwn connects to the unix socket at path and checks, with
// SO_PEERCRED, that the process listening there runs as our uid.
func dialOwn(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("%s: not a unix socket connection", path)
	}
	uid, err := peercred.UID(uc)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: cannot read the daemon's credentials: %w", path, err)
	}
	if me := os.Getuid(); uid != me {
		c.Close()
		return nil, &ForeignDaemonError{Socket: path, UID: uid, Own: me}
	}
	return c, nil
}

// ForeignDaemonError is ErrForeignDaemon with the details.
type ForeignDaemonError struct {
	Socket string
	UID    int // the uid serving the socket
	Own    int // ours
}

func (e *ForeignDaemonError) Error() string {
	return fmt.Sprintf("refusing the daemon at %s: it runs as uid %d, not as you (uid %d); stop it, or point socket (CKPT_SOCKET, --socket) at your own daemon's", e.Socket, e.UID, e.Own)
}

// Unwrap makes errors.Is(err, ErrForeignDaemon) hold.
func (e *ForeignDaemonError) Unwrap() error { return ErrForeignDaemon }
