package snapshot

// SetMaxFileSize changes Options.MaxFileSize for the captures from now on
// (a daemon reloading the workspace's configuration). Contents stored
// already stay stored; a file that now exceeds the limit is kept
// unstored at its next change.
func (ws *Workspace) SetMaxFileSize(n int64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.opts.MaxFileSize = n
}
