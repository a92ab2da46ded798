package codex

import "github.com/ckptdev/ckpt/integration/hooks/install"

// MCP is where Codex reads its MCP servers: ckpt integrate registers
// `ckpt mcp` there.
var MCP = install.MCPServer{ProjectFile: ".codex/config.toml", UserFile: ".codex/config.toml", Format: "toml"}
