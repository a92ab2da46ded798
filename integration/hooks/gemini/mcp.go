package gemini

import "github.com/ckptdev/ckpt/integration/hooks/install"

// MCP is where Gemini CLI reads its MCP servers: ckpt integrate registers
// `ckpt mcp` there.
var MCP = install.MCPServer{ProjectFile: ".gemini/settings.json", UserFile: ".gemini/settings.json", Format: "json"}
