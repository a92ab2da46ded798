package config

import "testing"

func TestUIAddrIsLoopbackOnly(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:0", "127.0.0.1:8765", "[::1]:0"} {
		if _, err := parseUIAddr(ok, "", ""); err != nil {
			t.Errorf("parseUIAddr(%q) = %v, want ok", ok, err)
		}
	}
	for _, bad := range []string{"0.0.0.0:0", ":8080", "192.168.1.2:80", "localhost:0", "[::]:0", "127.0.0.1", "127.0.0.1:99999"} {
		if _, err := parseUIAddr(bad, "", ""); err == nil {
			t.Errorf("parseUIAddr(%q) accepted, want refused", bad)
		}
	}
}
