package cli

import (
	"bytes"
	"path/filepath"

	"github.com/ckptdev/ckpt/integration/hooks/install"
)

// planMCP adds the registration of `ckpt mcp` to the changes: in the
// runtime's MCP file, which may be one the hooks already change (Gemini
// CLI's settings.json, Codex's config.toml), then edited on top of them.
func planMCP(r agentRuntime, o integrateOptions, dir, exe string, changes []settingsChange) ([]settingsChange, error) {
	path := r.mcp.File(!o.user, dir)
	i := 0
	for i < len(changes) && changes[i].path != path {
		i++
	}
	if i == len(changes) {
		c, err := readSettings(path)
		if err != nil {
			return nil, err
		}
		c.new, c.mcp = c.old, true
		changes = append(changes, c)
	}
	c := &changes[i]
	var err error
	if o.uninstall {
		c.new, _, err = r.mcp.Remove(c.path, c.new, exe)
	} else {
		c.new, _, err = r.mcp.Merge(c.path, c.new, exe)
	}
	if err != nil {
		return nil, err
	}
	c.changed = !bytes.Equal(c.new, c.old) || !c.existed && len(c.new) > 0
	if r.approval != nil && !o.user {
		return planMCPApproval(*r.approval, o, dir, changes)
	}
	return changes, nil
}

// planMCPApproval adds the approval of the project's ckpt server, where the
// runtime keeps the person's approvals of a project's servers, to the
// changes (or, with --uninstall, its withdrawal).
func planMCPApproval(a install.MCPApproval, o integrateOptions, dir string, changes []settingsChange) ([]settingsChange, error) {
	c, err := readSettings(filepath.Join(dir, a.File))
	if err != nil {
		return nil, err
	}
	if o.uninstall {
		c.new, _, err = a.Revoke(c.path, c.old)
	} else {
		c.new, _, err = a.Approve(c.path, c.old)
	}
	if err != nil {
		return nil, err
	}
	c.approve = true
	c.changed = !bytes.Equal(c.new, c.old) || !c.existed && len(c.new) > 0
	return append(changes, c), nil
}

// mcpInstalledIn is whether the MCP file registers ckpt's server.
func mcpInstalledIn(m install.MCPServer, path, exe string) bool {
	data, err := readSettings(path)
	return err == nil && m.Installed(data.old, exe)
}
