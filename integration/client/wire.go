package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// The client speaks HTTP/1.1 to the daemon itself rather than through
// net/http: a request is a few lines written on the socket and an answer a
// status line, headers and a body framed by Content-Length or chunked
// encoding. net/http's package initialisation, its transport's goroutines
// and the TLS, HTTP/2 and MIME code it links would be most of what a ckpt
// command costs when a daemon answers it.

// wireConn is one connection to the daemon, kept between calls when the
// daemon keeps it open.
type wireConn struct {
	nc *net.UnixConn
	br *bufio.Reader
}

// wireAnswer is the daemon's answer to one request: body reads its body.
// For a call, the body is read in full before the connection is reused;
// for an event stream, it is read as it arrives.
type wireAnswer struct {
	status     int
	statusLine string // "404 Not Found"
	version    string // api.VersionHeader
	body       io.Reader
	keepAlive  bool // the connection may be reused once body is read to its end
}

// maxIdleConns bounds the connections kept open between calls.
const maxIdleConns = 4

// idleConnTimeout is how long an idle connection is kept before a new one
// is dialled instead (the daemon closes idle ones after a while).
const idleConnTimeout = 30 * time.Second

// maxHeaderBytes bounds an answer's status line and headers.
const maxHeaderBytes = 1 << 20

type idleConn struct {
	wc    *wireConn
	since time.Time
}

// pool holds the idle connections.
type pool struct {
	mu   sync.Mutex
	idle []idleConn
}

func (p *pool) get() *wireConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 {
		ic := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if time.Since(ic.since) < idleConnTimeout {
			return ic.wc
		}
		ic.wc.nc.Close()
	}
	return nil
}

func (p *pool) put(wc *wireConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= maxIdleConns {
		wc.nc.Close()
		return
	}
	wc.nc.SetDeadline(time.Time{})
	p.idle = append(p.idle, idleConn{wc, time.Now()})
}

func (p *pool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ic := range p.idle {
		ic.wc.nc.Close()
	}
	p.idle = nil
}

// wireRequest is one request: target is the path and query.
type wireRequest struct {
	method, target string
	body           []byte // sent as JSON when not nil
	accept         string
	noWait         bool // api.WaitHeader: api.WaitNever
}

func (r wireRequest) bytes() []byte {
	var b bytes.Buffer
	b.Grow(128 + len(r.target) + len(r.body))
	b.WriteString(r.method)
	b.WriteByte(' ')
	b.WriteString(r.target)
	b.WriteString(" HTTP/1.1\r\nHost: ckptd\r\nUser-Agent: ckpt\r\n")
	if r.noWait {
		b.WriteString(api.WaitHeader + ": " + api.WaitNever + "\r\n")
	}
	if r.accept != "" {
		b.WriteString("Accept: " + r.accept + "\r\n")
	}
	if r.body != nil {
		b.WriteString("Content-Type: application/json\r\nContent-Length: ")
		b.WriteString(strconv.Itoa(len(r.body)))
		b.WriteString("\r\n")
	}
	b.WriteString("\r\n")
	b.Write(r.body)
	return b.Bytes()
}

// exchange sends req on a connection (an idle one if there is one, else a
// new one) and reads the answer's head. The caller reads the body and
// then calls done (true: the body was read to its end). A request on a
// reused connection that the daemon had closed is sent again on a new
// one, when it cannot have been carried out: nothing of it was written,
// or it only reads.
func (c *Client) exchange(ctx context.Context, req wireRequest) (*wireConn, *wireAnswer, func() bool, error) {
	for attempt := 0; ; attempt++ {
		wc, reused := c.pool.get(), true
		if wc == nil {
			nc, err := dialOwn(ctx, c.socket)
			if err != nil {
				return nil, nil, nil, err
			}
			wc, reused = &wireConn{nc: nc.(*net.UnixConn), br: bufio.NewReaderSize(nc, 8<<10)}, false
		}
		stop := watchContext(ctx, wc.nc)
		ans, wrote, err := wc.roundTrip(req)
		if err == nil {
			return wc, ans, stop, nil
		}
		stop()
		wc.nc.Close()
		if cerr := contextErr(ctx, err); cerr != nil {
			return nil, nil, nil, cerr
		}
		if reused && attempt == 0 && (!wrote || req.method == "GET") && closedEarly(err) {
			continue
		}
		return nil, nil, nil, err
	}
}

// closedEarly: the daemon closed the connection before answering.
func closedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// contextErr is ctx's error when err is the connection's deadline that
// ctx set (it may pass a moment before ctx's own timer), else nil.
func contextErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// watchContext makes the connection's reads and writes end when ctx does:
// at its deadline, or at once when it is cancelled. The returned func
// stops watching; it reports false when ctx ended meanwhile, and the
// connection, whose deadline may yet be moved, is not to be reused.
func watchContext(ctx context.Context, nc *net.UnixConn) func() bool {
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	} else {
		nc.SetDeadline(time.Time{})
	}
	if ctx.Done() == nil {
		return func() bool { return true }
	}
	return context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
}

// roundTrip writes req and reads the answer's head; wrote says whether any
// of the request was written.
func (wc *wireConn) roundTrip(req wireRequest) (*wireAnswer, bool, error) {
	msg := req.bytes()
	n, err := wc.nc.Write(msg)
	if err != nil {
		return nil, n > 0, err
	}
	ans, err := readHead(wc.br)
	if err != nil {
		return nil, true, err
	}
	return ans, true, nil
}

// readHead reads an answer's status line and headers, and frames its body.
func readHead(br *bufio.Reader) (*wireAnswer, error) {
	budget := maxHeaderBytes
	line, err := readLine(br, &budget)
	if err != nil {
		return nil, err
	}
	proto, rest, ok := strings.Cut(line, " ")
	if !ok || !strings.HasPrefix(proto, "HTTP/1.") || len(rest) < 3 {
		return nil, fmt.Errorf("malformed answer: %q", line)
	}
	status, err := strconv.Atoi(rest[:3])
	if err != nil || status < 100 {
		return nil, fmt.Errorf("malformed answer: %q", line)
	}
	ans := &wireAnswer{status: status, statusLine: rest, keepAlive: proto != "HTTP/1.0"}
	length, chunked := int64(-1), false
	for {
		line, err := readLine(br, &budget)
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("malformed header: %q", line)
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "content-length":
			if length, err = strconv.ParseInt(value, 10, 64); err != nil || length < 0 {
				return nil, fmt.Errorf("malformed Content-Length: %q", value)
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(value, "chunked")
		case "connection":
			if strings.EqualFold(value, "close") {
				ans.keepAlive = false
			}
		case "ckpt-version":
			ans.version = value
		}
	}
	switch {
	case status < 200 || status == 204 || status == 304:
		if status < 200 {
			return nil, fmt.Errorf("unexpected interim answer %q", ans.statusLine)
		}
		ans.body = bytes.NewReader(nil)
	case chunked:
		ans.body = &chunkedReader{br: br}
	case length >= 0:
		ans.body = &lengthReader{br: br, left: length}
	default: // the body runs to the end of the connection
		ans.body, ans.keepAlive = br, false
	}
	return ans, nil
}

// readLine reads one CRLF- (or LF-) terminated line, counting it against
// budget.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		*budget -= len(frag)
		if *budget < 0 {
			return "", errors.New("answer's headers too large")
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(line), "\r\n"), nil
	}
}

// lengthReader is a body of a known length.
type lengthReader struct {
	br   *bufio.Reader
	left int64
}

func (r *lengthReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.br.Read(p)
	r.left -= int64(n)
	if err == io.EOF && r.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// chunkedReader is a body in chunked transfer encoding.
type chunkedReader struct {
	br   *bufio.Reader
	left int64 // of the current chunk
	done bool
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	if r.left == 0 {
		if err := r.nextChunk(); err != nil {
			return 0, err
		}
		if r.done {
			return 0, io.EOF
		}
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.br.Read(p)
	r.left -= int64(n)
	if r.left == 0 && err == nil {
		err = r.crlf()
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// nextChunk reads a chunk's size line; a zero size ends the body (its
// trailers are read and dropped).
func (r *chunkedReader) nextChunk() error {
	budget := maxHeaderBytes
	line, err := readLine(r.br, &budget)
	if err != nil {
		return eofUnexpected(err)
	}
	size, _, _ := strings.Cut(line, ";")
	n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("malformed chunk size %q", line)
	}
	if n > 0 {
		r.left = n
		return nil
	}
	for {
		line, err := readLine(r.br, &budget)
		if err != nil {
			return eofUnexpected(err)
		}
		if line == "" {
			r.done = true
			return nil
		}
	}
}

func (r *chunkedReader) crlf() error {
	budget := 2
	line, err := readLine(r.br, &budget)
	if err != nil {
		return eofUnexpected(err)
	}
	if line != "" {
		return errors.New("malformed chunk end")
	}
	return nil
}

func eofUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
