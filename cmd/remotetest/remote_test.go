package remotetest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
)

type pushJSON struct {
	Segments     int `json:"segments"`
	Checkpoints  int `json:"checkpoints"`
	Blobs        int `json:"blobs"`
	BlobsPresent int `json:"blobs_present"`
}

// Two workspaces (two machines) holding the same files store each content
// once in the remote.
func TestSharedContentsAreStoredOnce(t *testing.T) {
	needWeed(t)
	bucket, url := bucketURL(t)
	shared := map[string]string{"a.txt": "same a\n", "b/c.txt": "same c\n", "d.bin": strings.Repeat("d", 100000)}
	var pushes []pushJSON
	for _, name := range []string{"one", "two"} {
		m := newMachine(t, url, "CKPT_REMOTE_NAME="+name)
		root := m.dir(name)
		writeFiles(t, root, shared)
		writeFiles(t, root, map[string]string{"own.txt": "only in " + name + "\n"})
		var p pushJSON
		m.json(root, &p, "push")
		pushes = append(pushes, p)
	}
	if pushes[0].Blobs != 4 || pushes[0].BlobsPresent != 0 {
		t.Errorf("first push: %+v, want 4 contents uploaded", pushes[0])
	}
	if pushes[1].Blobs != 1 || pushes[1].BlobsPresent != 3 {
		t.Errorf("second push: %+v, want 1 content uploaded and 3 found there", pushes[1])
	}
	if blobs := objects(t, bucket, "fleet/blobs/"); len(blobs) != 5 {
		t.Errorf("the remote holds %d blobs, want 5 (3 shared + 2 own): %v", len(blobs), blobs)
	}
	m := newMachine(t, url)
	out := m.ok(m.base, "remote", "ls")
	if !strings.Contains(out, "one  (1 checkpoint)") || !strings.Contains(out, "two  (1 checkpoint)") {
		t.Errorf("remote ls:\n%s", out)
	}
}

// A second machine pushing the same workspace name is refused while the
// first holds the lease, and nothing of it is written.
func TestSecondWriterIsRefused(t *testing.T) {
	needWeed(t)
	bucket, url := bucketURL(t)
	a := newMachine(t, url, "CKPT_REMOTE_NAME=proj")
	ra := a.dir("proj")
	writeFiles(t, ra, map[string]string{"a.txt": "from a\n"})
	a.ok(ra, "push")
	segs := objects(t, bucket, "fleet/ws/proj/seg/")

	b := newMachine(t, url, "CKPT_REMOTE_NAME=proj")
	rb := b.dir("other")
	writeFiles(t, rb, map[string]string{"b.txt": "from b\n"})
	r := b.ckpt(rb, nil, "push")
	if r.code != 1 || !strings.Contains(r.stderr, "is written by "+ra) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("second writer: %s\nwant exit 1 and one line naming the writer %s", r, ra)
	}
	if got := objects(t, bucket, "fleet/ws/proj/seg/"); len(got) != len(segs) {
		t.Errorf("the refused push wrote segments: %v, before %v", got, segs)
	}
	// The first writer goes on.
	writeFiles(t, ra, map[string]string{"a.txt": "from a, again\n"})
	a.ok(ra, "checkpoint")
	a.ok(ra, "push")
}

// Bad input: one line, exit 2, nothing made.
func TestRemoteBadInput(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	a := newMachine(t, url, "CKPT_REMOTE_NAME=proj")
	ra := a.dir("proj")
	writeFiles(t, ra, map[string]string{"a.txt": "a\n"})
	a.ok(ra, "push")
	full := a.dir("full")
	os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad remote URL", []string{"clone", "http://bucket/x", "proj", "d1"}, "s3://bucket"},
		{"remote without bucket", []string{"remote", "ls", "s3:///x"}, "s3://bucket"},
		{"unknown workspace", []string{"clone", url, "nosuch", "d2"}, "no workspace"},
		{"unknown checkpoint", []string{"clone", url, "proj@ck99-abcdef", "d3"}, "no replicated checkpoint"},
		{"malformed checkpoint", []string{"clone", url, "proj@../x", "d4"}, "WORKSPACE@CHECKPOINT"},
		{"non-empty directory", []string{"clone", url, "proj", full}, "not empty"},
		{"a remote with no replica", []string{"remote", "ls", "s3://" + weed.Bucket(t)}, "holds no ckpt replica"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.ckpt(a.base, nil, tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("%s\nwant exit 2 and one line saying %q", r, tc.want)
			}
			for _, d := range []string{"d1", "d2", "d3", "d4"} {
				if _, err := os.Stat(filepath.Join(a.base, d)); err == nil {
					t.Errorf("%s was made", d)
				}
			}
		})
	}
	r := a.ckpt(ra, []string{"CKPT_REMOTE=s3:/nobucket"}, "push")
	if r.code != 2 || !strings.Contains(r.stderr, "remote") {
		t.Errorf("bad remote in the environment: %s", r)
	}
}

// With a key file the bucket learns sizes only: no content, no path, no
// workspace name in any object's key or body; the key reads it back, and
// no key (or another) is refused.
func TestEncryptedRemote(t *testing.T) {
	needWeed(t)
	bucket, url := bucketURL(t)
	a := newMachine(t, url, "CKPT_REMOTE_NAME=secretproj")
	key := filepath.Join(a.base, "key")
	os.WriteFile(key, []byte(strings.Repeat("ab", 32)), 0o600)
	a.env = append(a.env, "CKPT_REMOTE_KEY_FILE="+key)
	root := a.dir("secretproj")
	writeFiles(t, root, map[string]string{"plans/launch-codes.txt": "TOPSECRET-CONTENT-1234\n"})
	a.ok(root, "checkpoint", "-m", "MESSAGE-SECRET")
	a.ok(root, "push")
	for _, k := range objects(t, bucket, "") {
		obj, err := weed.Client().GetObject(context.Background(), bucket, k, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(obj)
		obj.Close()
		for _, secret := range []string{"TOPSECRET", "launch-codes", "secretproj", "MESSAGE-SECRET", "plans"} {
			if strings.Contains(k, secret) || strings.Contains(string(body), secret) {
				t.Errorf("object %s shows %q", k, secret)
			}
		}
	}
	b := newMachine(t, "")
	if r := b.ckpt(b.base, nil, "clone", url, "secretproj", filepath.Join(b.base, "c0")); r.code != 2 || !strings.Contains(r.stderr, "encrypted") {
		t.Errorf("clone without the key: %s", r)
	}
	other := filepath.Join(b.base, "otherkey")
	os.WriteFile(other, []byte(strings.Repeat("cd", 32)), 0o600)
	if r := b.ckpt(b.base, []string{"CKPT_REMOTE_KEY_FILE=" + other}, "clone", url, "secretproj", filepath.Join(b.base, "c1")); r.code != 2 || !strings.Contains(r.stderr, "another key") {
		t.Errorf("clone with another key: %s", r)
	}
	dst := filepath.Join(b.base, "c2")
	b.ckpt(b.base, nil, "version")
	r := b.ckpt(b.base, []string{"CKPT_REMOTE_KEY_FILE=" + key}, "clone", url, "secretproj", dst)
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	sameTree(t, readTree(t, dst), readTree(t, root))
}
