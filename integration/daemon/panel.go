package daemon

import (
	"context"
	"os"

	"github.com/ckptdev/ckpt/integration/panel"
	"github.com/ckptdev/ckpt/integration/web"
)

// startPanel serves the web panel on ui_addr and writes its URL where
// `ckpt ui` finds it. A panel that cannot listen is logged, and the
// daemon goes on without it: recording matters more. The returned
// function stops it.
func (d *Daemon) startPanel() func() {
	p, err := panel.New(d.srv.PanelSource(), panel.Options{Assets: web.Assets, Log: d.log})
	if err != nil {
		d.log.Warn("no web panel", "err", err)
		return func() {}
	}
	ln, err := panel.Listen(d.opts.Base.UiAddr)
	if err != nil {
		d.log.Warn("no web panel", "err", err)
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Serve(ctx, ln); err != nil {
			d.log.Warn("the web panel stopped", "err", err)
		}
	}()
	path := panel.InfoPath(d.opts.Base.StateDir)
	if err := panel.WriteInfo(path, panel.Info{URL: p.URL(ln), PID: os.Getpid()}); err != nil {
		d.log.Warn("cannot write the web panel's address", "path", path, "err", err)
	}
	d.log.Info("web panel", "addr", ln.Addr().String(), "open_with", "ckpt ui")
	return func() {
		os.Remove(path)
		cancel()
		<-done
	}
}
