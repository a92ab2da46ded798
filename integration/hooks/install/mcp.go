package install

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// MCPServer is how a runtime registers ckpt's MCP server (`ckpt mcp`):
// the file it reads its MCP servers from, for a project and for a user.
// Format "json" is an "mcpServers" object keyed by server name (Claude
// Code, Gemini CLI, Cursor); "toml" is Codex's [mcp_servers.NAME] tables.
type MCPServer struct {
	ProjectFile, UserFile string
	Format                string
}

// MCPName is the name ckpt's server is registered under: its tools show
// as mcp__ckpt__TOOL in Claude Code.
const MCPName = "ckpt"

// File is the MCP file for a project root or a home directory.
func (m MCPServer) File(project bool, dir string) string {
	if project {
		return filepath.Join(dir, m.ProjectFile)
	}
	return filepath.Join(dir, m.UserFile)
}

// Merge returns the file's data with ckpt's server running ckpt (an
// absolute path) `mcp`, in place of any entry named ckpt; every other key
// and server stays. changed is false, and out is data, when it is there.
func (m MCPServer) Merge(path string, data []byte, ckpt string) (out []byte, changed bool, err error) {
	if m.Format == "toml" {
		return mergeMCPTOML(path, data, ckpt)
	}
	doc, servers, err := loadMCP(path, data)
	if err != nil {
		return nil, false, err
	}
	before := encode(doc)
	if servers == nil {
		servers = newObject()
		doc.set("mcpServers", servers)
	}
	entry := newObject()
	if old, ok := servers.get(MCPName); ok {
		if o, ok := old.(*object); ok {
			entry = o // keep the person's other keys (env, timeout, ...)
		}
	}
	entry.set("command", ckpt)
	entry.set("args", []any{"mcp"})
	servers.set(MCPName, entry)
	return result(data, before, doc)
}

// Remove returns the data without ckpt's server: the entry named ckpt
// whose command is a binary named ckpt (or self). An emptied
// "mcpServers" goes too.
func (m MCPServer) Remove(path string, data []byte, self string) (out []byte, changed bool, err error) {
	if m.Format == "toml" {
		if !m.Installed(data, self) {
			return data, false, nil
		}
		return removeMCPTables(path, data)
	}
	doc, servers, err := loadMCP(path, data)
	if err != nil {
		return nil, false, err
	}
	if servers == nil || !m.Installed(data, self) {
		return data, false, nil
	}
	before := encode(doc)
	servers.del(MCPName)
	if len(servers.keys) == 0 {
		doc.del("mcpServers")
	}
	return result(data, before, doc)
}

// Installed reports whether the data register ckpt's server.
func (m MCPServer) Installed(data []byte, self string) bool {
	var command any
	if m.Format == "toml" {
		doc, err := parseTOML(data)
		if err != nil {
			return false
		}
		command = lookup(doc, "mcp_servers", MCPName, "command")
	} else {
		_, servers, err := loadMCP("", data)
		if err != nil || servers == nil {
			return false
		}
		v, _ := servers.get(MCPName)
		o, ok := v.(*object)
		if !ok {
			return false
		}
		command, _ = o.get("command")
	}
	c, ok := command.(string)
	return ok && (filepath.Base(c) == "ckpt" || self != "" && c == self)
}

func loadMCP(path string, data []byte) (*object, *object, error) {
	doc, err := decodeObject(data)
	if err != nil {
		return nil, nil, &MalformedError{Path: path, Reason: "not a JSON object (" + err.Error() + ")"}
	}
	v, ok := doc.get("mcpServers")
	if !ok {
		return doc, nil, nil
	}
	servers, ok := v.(*object)
	if !ok {
		return nil, nil, &MalformedError{Path: path, Reason: `"mcpServers" is not an object`}
	}
	return doc, servers, nil
}

// mergeMCPTOML replaces the [mcp_servers."ckpt"] table (or adds it at
// the end); a file that then does not say command = ckpt (ckpt's table
// written another way) is refused.
func mergeMCPTOML(path string, data []byte, ckpt string) ([]byte, bool, error) {
	doc, err := parseTOML(data)
	if err != nil {
		return nil, false, &MalformedError{Path: path, Reason: "not valid TOML (" + oneLine(err.Error()) + ")"}
	}
	if c, _ := lookup(doc, "mcp_servers", MCPName, "command").(string); c == ckpt {
		if a, _ := lookup(doc, "mcp_servers", MCPName, "args").([]any); len(a) == 1 && a[0] == "mcp" {
			return data, false, nil
		}
	}
	out, _, err := removeMCPTables(path, data)
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	b.Write(out)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		b.WriteByte('\n')
	}
	if len(bytes.TrimSpace(out)) > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s\ncommand = %s\nargs = [\"mcp\"]\n", tableHeader("mcp_servers", MCPName), tomlString(ckpt))
	doc, err = parseTOML(b.Bytes())
	if c, _ := lookup(doc, "mcp_servers", MCPName, "command").(string); err != nil || c != ckpt {
		return nil, false, &MalformedError{Path: path, Reason: "cannot set [mcp_servers.ckpt] in it without rewriting it; set it by hand"}
	}
	return b.Bytes(), true, nil
}

// removeMCPTables takes out ckpt's [mcp_servers."ckpt"] table, and one
// written [mcp_servers.ckpt], with its subtables ([mcp_servers.ckpt.env]).
func removeMCPTables(path string, data []byte) ([]byte, bool, error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	ours := func(l []byte) bool {
		h := string(bytes.TrimSpace(l))
		for _, name := range []string{MCPName, tomlString(MCPName)} {
			p := "[mcp_servers." + name
			if h == p+"]" || strings.HasPrefix(h, p+".") && strings.HasSuffix(h, "]") {
				return true
			}
		}
		return false
	}
	var kept [][]byte
	for i := 0; i < len(lines); {
		if !ours(lines[i]) {
			kept = append(kept, lines[i])
			i++
			continue
		}
		if n := len(kept); n > 0 && len(bytes.TrimSpace(kept[n-1])) == 0 {
			kept = kept[:n-1]
		}
		for i++; i < len(lines) && !isHeader(lines[i]); i++ {
		}
	}
	out := bytes.Join(kept, nil)
	if bytes.Equal(out, data) {
		return data, false, nil
	}
	if _, err := parseTOML(out); err != nil {
		return nil, false, &MalformedError{Path: path, Reason: "cannot remove its [mcp_servers.ckpt] table without rewriting it; remove it by hand"}
	}
	return out, true, nil
}
