package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// parseUIAddr reads ui_addr: a loopback IP address and a port (0: a free
// one). The panel can rewrite files: it never listens beyond this host.
func parseUIAddr(raw any, _, _ string) (any, error) {
	s, err := scalar(raw)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return nil, fmt.Errorf("invalid address %q (use 127.0.0.1:PORT)", s)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("address %q is not a loopback IP address (use 127.0.0.1:PORT or [::1]:PORT)", s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return nil, fmt.Errorf("invalid port in %q", s)
	}
	return s, nil
}
