package claudecode

import "github.com/ckptdev/ckpt/integration/hooks/install"

// MCP is where Claude Code reads its MCP servers: ckpt integrate registers
// `ckpt mcp` there.
var MCP = install.MCPServer{ProjectFile: ".mcp.json", UserFile: ".claude.json", Format: "json"}
