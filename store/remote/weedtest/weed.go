// Package weedtest runs a real S3-compatible server for tests: SeaweedFS
// (`weed server -s3`) on 127.0.0.1, with free ports and a temporary data
// directory. The binary is $CKPT_WEED (scripts/test-deps.sh builds it once
// and caches it); without it the tests that need a server skip, saying so.
//
// Only tests import this package.
package weedtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The credentials of the server's one identity.
const (
	AccessKey = "ckpttest"
	SecretKey = "ckpttestsecret"
)

// Server is a running SeaweedFS.
type Server struct {
	Bin      string
	Dir      string
	Endpoint string // http://127.0.0.1:PORT, the S3 gateway
	ports    map[string]int
	mu       sync.Mutex
	cmd      *exec.Cmd
	done     chan struct{}
	buckets  int
}

// SkipReason is why no server can run, or "".
func SkipReason() string {
	if os.Getenv("CKPT_WEED") == "" {
		return "CKPT_WEED is not set: no SeaweedFS binary to run (scripts/test-deps.sh builds one and sets it)"
	}
	return ""
}

// Start starts a server in a new temporary directory under dir; Stop ends
// it. It fails if CKPT_WEED is set but the server does not come up.
func Start(dir string) (*Server, error) {
	s := &Server{Bin: os.Getenv("CKPT_WEED"), Dir: dir, ports: map[string]int{}}
	// Every listener stays open until all ports are chosen: closed at once,
	// the next pick could be handed the same port again.
	var held []net.Listener
	for _, name := range []string{"master", "master.grpc", "volume", "volume.grpc", "filer", "filer.grpc", "s3", "s3.grpc"} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			closeAll(held)
			return nil, err
		}
		held = append(held, l)
		s.ports[name] = l.Addr().(*net.TCPAddr).Port
	}
	closeAll(held)
	s.Endpoint = fmt.Sprintf("http://127.0.0.1:%d", s.ports["s3"])
	conf := fmt.Sprintf(`{"identities":[{"name":"ckpt","credentials":[{"accessKey":%q,"secretKey":%q}],"actions":["Admin","Read","Write","List","Tagging"]}]}`, AccessKey, SecretKey)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "s3.json"), []byte(conf), 0o600); err != nil {
		return nil, err
	}
	return s, s.Restart()
}

func closeAll(ls []net.Listener) {
	for _, l := range ls {
		l.Close()
	}
}

// Restart starts the server again (after Kill) on the same ports and data,
// and waits until it takes writes.
func (s *Server) Restart() error {
	p := func(n string) string { return strconv.Itoa(s.ports[n]) }
	args := []string{"server", "-dir=" + filepath.Join(s.Dir, "data"), "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + p("master"), "-master.port.grpc=" + p("master.grpc"),
		"-volume.port=" + p("volume"), "-volume.port.grpc=" + p("volume.grpc"),
		"-filer", "-filer.port=" + p("filer"), "-filer.port.grpc=" + p("filer.grpc"),
		"-s3", "-s3.port=" + p("s3"), "-s3.port.grpc=" + p("s3.grpc"), "-s3.port.iceberg=0", "-s3.port.lance=0",
		"-s3.config=" + filepath.Join(s.Dir, "s3.json"),
		"-master.volumeSizeLimitMB=64", "-volume.max=0", "-metricsPort=0"}
	log, err := os.OpenFile(filepath.Join(s.Dir, "weed.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.Bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", s.Bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(done) }()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	return s.waitReady(90 * time.Second)
}

// waitReady waits until a probe object can be written.
func (s *Server) waitReady(within time.Duration) error {
	mc := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var last error
	for ctx.Err() == nil {
		select {
		case <-s.done:
			return fmt.Errorf("weed exited while starting; its log: %s", s.LogTail())
		default:
		}
		if err := mc.MakeBucket(ctx, "probe", minio.MakeBucketOptions{}); err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" && minio.ToErrorResponse(err).Code != "BucketAlreadyExists" {
			last = err
		} else if _, err := mc.PutObject(ctx, "probe", "probe", bytes.NewReader([]byte("x")), 1, minio.PutObjectOptions{}); err != nil {
			last = err
		} else {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("weed did not take writes within %s: %v; its log: %s", within, last, s.LogTail())
}

// Client is a minio client of the server.
func (s *Server) Client() *minio.Client {
	mc, err := minio.New(strings.TrimPrefix(s.Endpoint, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Secure: false, MaxRetries: 1})
	if err != nil {
		panic(err)
	}
	return mc
}

// Bucket makes a new bucket and returns its name.
func (s *Server) Bucket(t testing.TB) string {
	s.mu.Lock()
	s.buckets++
	name := fmt.Sprintf("b%d-%d", s.buckets, time.Now().UnixNano()%1e6)
	s.mu.Unlock()
	if err := s.Client().MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s: %v", name, err)
	}
	return name
}

// Env is what a ckpt process needs to reach the server.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "CKPT_REMOTE_ENDPOINT=" + s.Endpoint}
}

// Kill kills the server at once (SIGKILL, the whole process group).
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Stop ends the server.
func (s *Server) Stop() { s.Kill() }

// Shell runs `weed shell` commands against the server's master.
func (s *Server) Shell(commands string) (string, error) {
	// host:port.grpcport: the shell would take port+10000 for gRPC.
	addr := func(n string) string {
		return "127.0.0.1:" + strconv.Itoa(s.ports[n]) + "." + strconv.Itoa(s.ports[n+".grpc"])
	}
	cmd := exec.Command(s.Bin, "shell", "-master="+addr("master"), "-filer="+addr("filer"))
	cmd.Stdin = strings.NewReader(commands + "\nexit\n")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// LogTail is the end of the server's log.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "weed.log"))
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}
