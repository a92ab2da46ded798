package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"golang.org/x/time/rate"

	"github.com/ckptdev/ckpt/fault"
)

// Config says where a remote is and how to reach it.
type Config struct {
	// URL is s3://bucket[/prefix].
	URL string
	// Endpoint is the S3 server: host[:port], or http(s)://host[:port].
	// Empty means AWS S3 (s3.amazonaws.com).
	Endpoint string
	// Region is the bucket's region; empty lets the client find it.
	Region string
	// KeyFile, if set, encrypts everything uploaded (crypt.go).
	KeyFile string
	// Bandwidth bounds the upload rate in bytes per second; 0: unbounded.
	Bandwidth int64
}

// Remote is an open remote: a bucket, a prefix and a client.
type Remote struct {
	URL    string
	bucket string
	prefix string // "" or ending in "/"
	mc     *minio.Client
	key    *sealer // nil: not encrypted
	limit  *rate.Limiter
}

// ErrBadURL marks a remote URL that cannot be used.
var ErrBadURL = fault.Sentinel(fault.Invalid, "bad remote URL")

// ParseURL splits s3://bucket/prefix.
func ParseURL(s string) (bucket, prefix string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return "", "", fmt.Errorf("%w %q: want s3://bucket[/prefix]", ErrBadURL, s)
	}
	p := strings.Trim(u.Path, "/")
	if p != "" && (path.Clean(p) != p || strings.Contains(p, "//")) {
		return "", "", fmt.Errorf("%w %q: the prefix is not a clean path", ErrBadURL, s)
	}
	if p != "" {
		p += "/"
	}
	return u.Host, p, nil
}

// Open connects to the remote (it sends no request yet). Credentials come
// the standard way, first found wins: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (or MINIO_ACCESS_KEY...), the shared credentials
// file (~/.aws/credentials, AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE),
// then the instance's role (EC2/ECS metadata, web identity).
func Open(cfg Config) (*Remote, error) {
	bucket, prefix, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	host, secure, err := endpoint(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.EnvMinio{},
		&credentials.FileAWSCredentials{},
		&credentials.IAM{Client: &http.Client{Transport: http.DefaultTransport}},
	})
	// As many idle connections kept as requests are in flight (a clone
	// fetches fetchParallel at once): others would be opened anew each.
	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, err
	}
	tr.MaxIdleConnsPerHost = max(tr.MaxIdleConnsPerHost, fetchParallel)
	mc, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: cfg.Region, MaxRetries: 3, Transport: tr})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	r := &Remote{URL: cfg.URL, bucket: bucket, prefix: prefix, mc: mc}
	if cfg.KeyFile != "" {
		if r.key, err = loadKey(cfg.KeyFile); err != nil {
			return nil, err
		}
	}
	if cfg.Bandwidth > 0 {
		r.limit = rate.NewLimiter(rate.Limit(cfg.Bandwidth), int(min(cfg.Bandwidth, 1<<20)))
	}
	return r, nil
}

func endpoint(s string) (host string, secure bool, err error) {
	if s == "" {
		return "s3.amazonaws.com", true, nil
	}
	if !strings.Contains(s, "://") {
		return s, true, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" {
		return "", false, fmt.Errorf("%w: endpoint %q: want host[:port] or http(s)://host[:port]", ErrBadURL, s)
	}
	return u.Host, u.Scheme == "https", nil
}

// Encrypted reports whether what this remote uploads is encrypted.
func (r *Remote) Encrypted() bool { return r.key != nil }

// errPrecondition: a conditional write found the object in another state.
var errPrecondition = errors.New("precondition failed")

// errNoObject: the object does not exist.
var errNoObject = fault.Sentinel(fault.NotFound, "no such object")

func (r *Remote) full(key string) string { return r.prefix + key }

// put writes body (sealed when encrypted) at key. ifNone: only if the key
// does not exist; ifMatch: only if its ETag is this. It returns the ETag.
func (r *Remote) put(ctx context.Context, key string, body []byte, ifNone bool, ifMatch string) (string, error) {
	body = r.seal(key, body)
	if r.limit != nil {
		if err := waitN(ctx, r.limit, len(body)); err != nil {
			return "", err
		}
	}
	opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableMultipart: true}
	if ifNone {
		opts.SetMatchETagExcept("*")
	}
	if ifMatch != "" {
		opts.SetMatchETag(ifMatch)
	}
	info, err := r.mc.PutObject(ctx, r.bucket, r.full(key), bytes.NewReader(body), int64(len(body)), opts)
	if err != nil {
		return "", r.wrap("put", key, err)
	}
	return info.ETag, nil
}

// waitN takes n tokens from l, in bursts it can give.
func waitN(ctx context.Context, l *rate.Limiter, n int) error {
	for n > 0 {
		k := min(n, l.Burst())
		if err := l.WaitN(ctx, k); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// get reads (and opens, when encrypted) the object at key, with its ETag.
func (r *Remote) get(ctx context.Context, key string) ([]byte, string, error) {
	obj, err := r.mc.GetObject(ctx, r.bucket, r.full(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, "", r.wrap("get", key, err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		return nil, "", r.wrap("get", key, err)
	}
	st, err := obj.Stat()
	if err != nil {
		return nil, "", r.wrap("get", key, err)
	}
	plain, err := r.open(key, b)
	return plain, st.ETag, err
}

// exists reports whether an object is at key.
func (r *Remote) exists(ctx context.Context, key string) (bool, error) {
	_, err := r.mc.StatObject(ctx, r.bucket, r.full(key), minio.StatObjectOptions{})
	if err == nil {
		return true, nil
	}
	if err = r.wrap("stat", key, err); errors.Is(err, errNoObject) {
		return false, nil
	}
	return false, err
}

// list calls fn with every key under prefix (relative to the remote's
// prefix), in order; with delim, only the next level ("a/", "b/").
func (r *Remote) list(ctx context.Context, prefix string, delim bool, fn func(key string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for obj := range r.mc.ListObjects(ctx, r.bucket, minio.ListObjectsOptions{Prefix: r.full(prefix), Recursive: !delim}) {
		if obj.Err != nil {
			return r.wrap("list", prefix, obj.Err)
		}
		if err := fn(strings.TrimPrefix(obj.Key, r.prefix)); err != nil {
			return err
		}
	}
	return nil
}

// wrap names the failed request and marks what callers tell apart.
func (r *Remote) wrap(op, key string, err error) error {
	var resp minio.ErrorResponse
	if errors.As(err, &resp) {
		switch {
		case resp.StatusCode == http.StatusPreconditionFailed || resp.Code == "PreconditionFailed":
			return fmt.Errorf("%s %s: %w", op, key, errPrecondition)
		case resp.StatusCode == http.StatusNotFound || resp.Code == "NoSuchKey":
			if resp.Code == "NoSuchBucket" {
				return fault.Mark(fmt.Errorf("bucket %s does not exist (remote %s)", r.bucket, r.URL), fault.Invalid)
			}
			return fmt.Errorf("%s %s: %w", op, key, errNoObject)
		}
	}
	return fmt.Errorf("remote %s: %s %s: %w", r.URL, op, key, err)
}

// ensureFormat checks the remote's format object, writing it if the remote
// is new: a remote written with a key is never read or written without it,
// nor with another key.
func (r *Remote) ensureFormat(ctx context.Context, create bool) error {
	want := formatObject{Version: 1}
	if r.key != nil {
		want.KeyID = r.key.id
	}
	b, _, err := r.getPlain(ctx, formatKey)
	if errors.Is(err, errNoObject) {
		if !create {
			return fault.Mark(fmt.Errorf("%s holds no ckpt replica", r.URL), fault.Invalid)
		}
		_, err = r.putPlain(ctx, formatKey, mustJSON(want), true)
		if errors.Is(err, errPrecondition) {
			return r.ensureFormat(ctx, false)
		}
		return err
	}
	if err != nil {
		return err
	}
	var got formatObject
	if err := jsonUnmarshal(b, &got); err != nil || got.Version != 1 {
		return fmt.Errorf("%s: %s is not a ckpt replica of format 1", r.URL, formatKey)
	}
	switch {
	case got.KeyID == "" && r.key != nil:
		return fault.Mark(fmt.Errorf("%s is not encrypted; remove remote_key_file to use it", r.URL), fault.Invalid)
	case got.KeyID != "" && r.key == nil:
		return fault.Mark(fmt.Errorf("%s is encrypted: set remote_key_file to its key", r.URL), fault.Invalid)
	case got.KeyID != want.KeyID:
		return fault.Mark(fmt.Errorf("%s is encrypted with another key than %s", r.URL, r.key.file), fault.Invalid)
	}
	return nil
}

// getPlain and putPlain skip encryption (the format object).
func (r *Remote) getPlain(ctx context.Context, key string) ([]byte, string, error) {
	r2 := *r
	r2.key = nil
	return r2.get(ctx, key)
}

func (r *Remote) putPlain(ctx context.Context, key string, body []byte, ifNone bool) (string, error) {
	r2 := *r
	r2.key = nil
	return r2.put(ctx, key, body, ifNone, "")
}

type formatObject struct {
	Version int    `json:"version"`
	KeyID   string `json:"key_id,omitempty"`
}

// Check reports whether the remote is reachable and holds a replica (or,
// with create, can hold one).
func (r *Remote) Check(ctx context.Context, create bool) error {
	return r.ensureFormat(ctx, create)
}
