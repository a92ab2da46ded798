package remote

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

const formatKey = "ckpt-remote.json"

func blobKey(name string) string { return "blobs/" + name[:2] + "/" + name }

func (r *Remote) wsPrefix(ws string) string { return "ws/" + r.wsDir(ws) + "/" }

func (r *Remote) infoKey(ws string) string  { return r.wsPrefix(ws) + "info" }
func (r *Remote) leaseKey(ws string) string { return r.wsPrefix(ws) + "lease" }

func (r *Remote) segKey(ws string, n uint64) string {
	return fmt.Sprintf("%sseg/%016x", r.wsPrefix(ws), n)
}

func (r *Remote) manifestKey(ws string, ord uint64) string {
	return fmt.Sprintf("%sck/%016x", r.wsPrefix(ws), ord)
}

// hexTail parses the 16 hex digits after the last '/' of key.
func hexTail(key string) (uint64, bool) {
	i := strings.LastIndexByte(key, '/')
	t := key[i+1:]
	if len(t) != 16 {
		return 0, false
	}
	n, err := strconv.ParseUint(t, 16, 64)
	return n, err == nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// ValidName reports whether name can name a workspace in a remote: 1 to
// 128 of [A-Za-z0-9._-], not starting with a dot.
func ValidName(name string) bool {
	if name == "" || len(name) > 128 || name[0] == '.' {
		return false
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}
