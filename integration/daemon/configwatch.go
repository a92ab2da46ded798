package daemon

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/config"
)

// UserConfigPoll is how often a watched workspace looks at the user's
// configuration file (config.UserFile), which lies outside the workspace
// and its watcher; a variable so that tests can shrink it.
var UserConfigPoll = 2 * time.Second

// fileStamp is what tells a file's versions apart without reading it.
type fileStamp struct {
	exists bool
	size   int64
	mtime  time.Time
	ino    uint64
}

func stampOf(path string) fileStamp {
	info, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	s := fileStamp{exists: true, size: info.Size(), mtime: info.ModTime()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		s.ino = st.Ino
	}
	return s
}

// watchUserConfig reloads the workspace's configuration whenever the
// user's configuration file changes (created, written, replaced,
// removed), until ctx ends. A workspace's own ckpt.yaml is its watcher's.
func (wd *Watched) watchUserConfig(ctx context.Context) {
	path := config.UserFile()
	if path == "" || wd.live.reload == nil {
		return
	}
	last := stampOf(path)
	tick := time.NewTicker(UserConfigPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if now := stampOf(path); now != last {
			last = now
			wd.reloadConfig()
		}
	}
}
