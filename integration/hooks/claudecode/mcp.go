package claudecode

import "github.com/ckptdev/ckpt/integration/hooks/install"

// MCP is where Claude Code reads its MCP servers: ckpt integrate registers
// `ckpt mcp` there.
var MCP = install.MCPServer{ProjectFile: ".mcp.json", UserFile: ".claude.json", Format: "json"}

// MCPApproval is where Claude Code keeps the approval of a project's
// .mcp.json servers: 2.1.332 runs them only once approved (its prompt
// writes the name into enabledMcpjsonServers of .claude/settings.local.json,
// the person's own settings of the project), and reads no approval from
// the project's shared .claude/settings.json, so a repository cannot
// approve its own servers. ckpt integrate --project approves ckpt's server
// there, by name, rather than setting enableAllProjectMcpServers, which
// would approve every server the project names.
var MCPApproval = install.MCPApproval{File: ".claude/settings.local.json", Key: "enabledMcpjsonServers"}
