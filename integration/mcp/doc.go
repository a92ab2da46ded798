// Package mcp is ckpt's MCP server (`ckpt mcp`, over stdio): tools for the
// agent itself to ask what the person changed since its last turn, what its
// run or one tool call changed, a path's history, and to restore named
// paths, revert its own run or tool call, and undo the last restore. It
// answers through a Backend, which the daemon's client and the embedded
// engine both satisfy, so it works with and without a daemon.
package mcp
