package cursor

import "github.com/ckptdev/ckpt/integration/hooks/install"

// MCP is where Cursor reads its MCP servers: ckpt integrate registers
// `ckpt mcp` there.
var MCP = install.MCPServer{ProjectFile: ".cursor/mcp.json", UserFile: ".cursor/mcp.json", Format: "json"}
