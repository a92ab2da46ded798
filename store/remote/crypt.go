package remote

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/ckptdev/ckpt/fault"
)

// sealer encrypts and names what goes to an untrusted bucket: every
// object's body with XChaCha20-Poly1305 (a random 24-byte nonce, the
// object's key as additional data, so an object moved to another key does
// not open), and every content-derived name with HMAC-SHA256, so the
// bucket learns sizes and the shape of the layout, and nothing of names
// or contents.
type sealer struct {
	file string
	enc  []byte // the AEAD key
	mac  []byte // the naming key
	id   string // names the key in the format object
}

// loadKey reads a key file: 32 bytes, raw or as 64 hex digits (e.g.
// `head -c 32 /dev/urandom > key`).
func loadKey(file string) (*sealer, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fault.Mark(fmt.Errorf("remote key file: %w", err), fault.Invalid)
	}
	if t := strings.TrimSpace(string(b)); len(t) == 64 {
		if h, err := hex.DecodeString(t); err == nil {
			b = h
		}
	}
	if len(b) != 32 {
		return nil, fault.Mark(fmt.Errorf("remote key file %s: want 32 bytes (raw or 64 hex digits), found %d", file, len(b)), fault.Invalid)
	}
	s := &sealer{file: file, enc: derive(b, "ckpt remote encryption"), mac: derive(b, "ckpt remote names")}
	s.id = hex.EncodeToString(derive(b, "ckpt remote key id")[:16])
	return s, nil
}

var randRead = rand.Read

func derive(key []byte, label string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// name is a content's blob name: SHA-256, keyed when encrypting.
func (r *Remote) name(content []byte) string {
	if r.key == nil {
		h := sha256.Sum256(content)
		return hex.EncodeToString(h[:])
	}
	m := hmac.New(sha256.New, r.key.mac)
	m.Write(content)
	return hex.EncodeToString(m.Sum(nil))
}

// wsDir is a workspace's directory name in the remote.
func (r *Remote) wsDir(name string) string {
	if r.key == nil {
		return name
	}
	m := hmac.New(sha256.New, r.key.mac)
	m.Write([]byte("workspace\x00" + name))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

func (r *Remote) seal(key string, plain []byte) []byte {
	if r.key == nil {
		return plain
	}
	aead, _ := chacha20poly1305.NewX(r.key.enc)
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return aead.Seal(nonce, nonce, plain, []byte(key))
}

func (r *Remote) open(key string, body []byte) ([]byte, error) {
	if r.key == nil {
		return body, nil
	}
	aead, _ := chacha20poly1305.NewX(r.key.enc)
	if len(body) < aead.NonceSize()+aead.Overhead() {
		return nil, fmt.Errorf("remote %s: %s is too short to be sealed", r.URL, key)
	}
	plain, err := aead.Open(nil, body[:aead.NonceSize()], body[aead.NonceSize():], []byte(key))
	if err != nil {
		return nil, fmt.Errorf("remote %s: %s does not open with key %s (tampered, or another key)", r.URL, key, r.key.file)
	}
	return plain, nil
}
