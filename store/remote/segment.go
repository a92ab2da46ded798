package remote

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ckptdev/ckpt/store"
)

// segment is one immutable piece of a workspace's replicated history.
type segment struct {
	N      uint64 `json:"n"`
	Writer string `json:"writer"` // the lease holder that wrote it
	From   uint64 `json:"from"`   // journal entries with From < seq <= To
	To     uint64 `json:"to"`
	// Changes are journal entries in store.EncodeChange's encoding.
	Changes     []segChange        `json:"changes,omitempty"`
	Checkpoints []store.Checkpoint `json:"checkpoints,omitempty"`
	Runs        []store.Run        `json:"runs,omitempty"`
	Tools       []store.ToolWindow `json:"tools,omitempty"`
	Blobs       map[string]string  `json:"blobs,omitempty"` // hashKey -> blob name
}

type segChange struct {
	Seq uint64 `json:"s"`
	B   []byte `json:"b"`
}

// hashKey names a content the way the store does (its two hashes and size).
func hashKey(h store.Hash) string { return fmt.Sprintf("%016x%016x-%x", h.H1, h.H2, h.Size) }

func (s *segment) encode() []byte {
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestSpeed)
	if err := json.NewEncoder(zw).Encode(s); err != nil {
		panic(err)
	}
	zw.Close()
	return buf.Bytes()
}

func decodeSegment(b []byte) (*segment, error) {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(b)))
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	var s segment
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	return &s, nil
}

// Manifest says that one checkpoint is replicated: its record, and the
// segment through which a clone must read to have it.
type Manifest struct {
	Checkpoint store.Checkpoint `json:"checkpoint"`
	Segment    uint64           `json:"segment"`
}
