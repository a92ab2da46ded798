package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/internal/peercred"
)

// ErrDaemonRunning means something already answers on the socket.
var ErrDaemonRunning = fault.Sentinel(fault.Busy, "another ckptd is already serving")

// maxSocketPath is the longest path a unix socket can bind (sun_path is 108
// bytes with its terminating NUL on Linux).
const maxSocketPath = 107

// staleDialTimeout bounds the dial that finds out whether a daemon is there.
var staleDialTimeout = time.Second

// Listen listens on the unix socket at path, for the daemon. It creates
// the socket's directory 0700 if needed, fails with ErrDaemonRunning if
// something answers on path, replaces a stale socket (one that refuses
// connections), and never removes a file that is not a socket. The socket
// is 0600 and every connection accepted from another uid is closed at once
// (and logged to log, at warn level; nil: not logged).
func Listen(path string, log *slog.Logger) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is too long (%d bytes; at most %d): set socket (or CKPT_SOCKET) to a shorter path", path, len(path), maxSocketPath)
	}
	if err := makePrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &peerListener{UnixListener: ln, uid: os.Getuid(), log: log}, nil
}

// makePrivateDir creates dir (and its parents) if missing, and makes the
// directory it created 0700 whatever the umask. An existing directory is
// left as it is: it may be shared, like /tmp.
func makePrivateDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the socket's directory: %w", err)
	}
	return os.Chmod(dir, 0o700)
}

// removeStale dials path: an answer is another daemon (ErrDaemonRunning), a
// refused connection is a stale socket, which is removed.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket; not touching it (move it away or set another socket path)", path)
	}
	c, err := net.DialTimeout("unix", path, staleDialTimeout)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w %s", ErrDaemonRunning, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%s: is another ckptd there? %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the stale socket: %w", err)
	}
	return nil
}

// peerListener accepts only connections from its own uid.
type peerListener struct {
	*net.UnixListener
	uid int
	log *slog.Logger
}

// Accept returns the next connection whose peer is the daemon's uid;
// connections from anyone else are closed unanswered.
func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.UnixListener.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, err := peercred.UID(c)
		if err == nil && uid == l.uid {
			return c, nil
		}
		if err != nil {
			l.log.Warn(fmt.Sprintf("refused a connection: cannot read its peer credentials: %v", err))
		} else {
			l.log.Warn(fmt.Sprintf("refused a connection from uid %d (only uid %d may connect)", uid, l.uid))
		}
		c.Close()
	}
}
