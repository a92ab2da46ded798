// Package service writes the systemd user unit that runs ckptd watch for
// a set of workspaces (ckptd install-service).
package service
