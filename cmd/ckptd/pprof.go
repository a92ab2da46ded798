package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
)

// pprofEnv names a loopback address (host:port) on which the daemon serves
// Go's profiles (/debug/pprof/), for measuring where its time and memory
// go. Unset, nothing listens.
const pprofEnv = "CKPT_DEBUG_PPROF"

// servePprof starts the profile server when pprofEnv asks for one. Only a
// loopback address is accepted: the profiles show paths of the workspace.
func servePprof(log *slog.Logger) {
	addr := os.Getenv(pprofEnv)
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		log.Warn(pprofEnv + " must be a loopback host:port; not serving profiles")
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Warn("profiles: " + err.Error())
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("profiles", "addr", "http://"+strings.TrimPrefix(ln.Addr().String(), "http://")+"/debug/pprof/")
	go http.Serve(ln, mux)
}
