package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/ckptdev/ckpt/store"
)

// Pusher replicates one workspace's store to a remote. Its limits may be
// left zero for the defaults.
type Pusher struct {
	Remote *Remote
	Store  *store.Store
	Name   string // the workspace's name in the remote
	Root   string // the workspace's root here (named in the lease)

	LeaseTTL       time.Duration // default 10 minutes
	SegmentChanges int           // journal entries per segment; default 4096
	Parallel       int           // requests in flight; default 16
	InFlight       int64         // content bytes in memory at once; default 64 MiB
	// Stored, if set, is told the cursor after each segment is stored.
	Stored func(Cursor)

	leaseAt time.Time
}

// Cursor is how far a workspace is replicated: through journal seq Seq,
// checkpoint order Ord (CheckpointID, the newest replicated checkpoint)
// and segment number Seg.
type Cursor struct {
	Seq          uint64    `json:"seq"`
	Ord          uint64    `json:"ord"`
	Seg          uint64    `json:"seg"`
	CheckpointID string    `json:"checkpoint_id,omitempty"`
	At           time.Time `json:"at,omitzero"`
}

// PushResult is what one push did.
type PushResult struct {
	Segments     int    `json:"segments"`
	Checkpoints  int    `json:"checkpoints"`   // newly replicated
	Blobs        int    `json:"blobs"`         // uploaded
	BlobBytes    int64  `json:"blob_bytes"`    // their content's size
	BlobsPresent int    `json:"blobs_present"` // already in the remote (another workspace's)
	Cursor       Cursor `json:"cursor"`
}

func (p *Pusher) defaults() {
	if p.LeaseTTL <= 0 {
		p.LeaseTTL = 10 * time.Minute
	}
	if p.SegmentChanges <= 0 {
		p.SegmentChanges = 4096
	}
	if p.Parallel <= 0 {
		p.Parallel = 16
	}
	if p.InFlight <= 0 {
		p.InFlight = 64 << 20
	}
}

// MarkID names this remote and workspace among the store's replica marks.
func MarkID(r *Remote, name string) string {
	h := sha256.Sum256([]byte(r.URL + "\x00" + name))
	return hex.EncodeToString(h[:8])
}

// Holder is the store's writer id for leases: random, made once.
func Holder(st *store.Store) (string, error) {
	var id []byte
	err := st.View(func(r *store.Reader) (err error) {
		id, err = r.Mark("", "holder")
		return err
	})
	if err != nil || len(id) > 0 {
		return string(id), err
	}
	b := make([]byte, 12)
	if _, err := randRead(b); err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	id = []byte(host + "-" + hex.EncodeToString(b))
	return string(id), st.Write(func(w *store.Writer) error { return w.PutMark("", "holder", id) })
}

// ReadCursor is the cursor the store remembers for remote and name.
func ReadCursor(st *store.Store, r *Remote, name string) (Cursor, error) {
	var c Cursor
	err := st.View(func(rd *store.Reader) error {
		b, err := rd.Mark(MarkID(r, name), "cursor")
		if err != nil || b == nil {
			return err
		}
		return json.Unmarshal(b, &c)
	})
	return c, err
}

// Push uploads everything the remote does not have yet, segment by
// segment, and returns once the remote holds the store as it was when the
// last segment was read.
func (p *Pusher) Push(ctx context.Context) (PushResult, error) {
	p.defaults()
	var res PushResult
	if !ValidName(p.Name) {
		return res, fmt.Errorf("%w: workspace name %q: use 1-128 of A-Z a-z 0-9 . _ - (remote_name)", ErrBadURL, p.Name)
	}
	if err := p.Remote.ensureFormat(ctx, true); err != nil {
		return res, err
	}
	holder, err := Holder(p.Store)
	if err != nil {
		return res, err
	}
	cur, err := ReadCursor(p.Store, p.Remote, p.Name)
	if err != nil {
		return res, err
	}
	res.Cursor = cur
	for {
		if time.Since(p.leaseAt) > p.LeaseTTL/3 {
			if err := p.Remote.Acquire(ctx, p.Name, holder, p.Root, p.LeaseTTL); err != nil {
				return res, err
			}
			p.leaseAt = time.Now()
		}
		if cur.Seg == 0 {
			if err := p.putInfo(ctx); err != nil {
				return res, err
			}
		}
		seg, need, err := p.nextSegment(cur, holder)
		if err != nil || seg == nil {
			return res, err
		}
		if err := p.uploadBlobs(ctx, seg, need, &res); err != nil {
			return res, err
		}
		seg, err = p.putSegment(ctx, seg)
		if err != nil {
			return res, err
		}
		n, err := p.putManifests(ctx, seg)
		if err != nil {
			return res, err
		}
		cur = advance(cur, seg)
		if err := p.record(seg, cur); err != nil {
			return res, err
		}
		res.Segments++
		res.Checkpoints += n
		res.Cursor = cur
		if p.Stored != nil {
			p.Stored(cur)
		}
	}
}

// advance is the cursor after seg is stored with its manifests.
func advance(cur Cursor, seg *segment) Cursor {
	cur.Seg, cur.At = seg.N, time.Now().UTC()
	cur.Seq = max(cur.Seq, seg.To)
	for _, cp := range seg.Checkpoints {
		if cp.Ord > cur.Ord {
			cur.Ord, cur.CheckpointID = cp.Ord, cp.ID
		}
	}
	return cur
}

func (p *Pusher) putInfo(ctx context.Context) error {
	info := map[string]string{"name": p.Name}
	_, err := p.Remote.put(ctx, p.Remote.infoKey(p.Name), mustJSON(info), true, "")
	if errors.Is(err, errPrecondition) {
		return nil
	}
	return err
}

// recordHash is what the marks remember of a run or tool window sent.
func recordHash(v any) []byte {
	h := sha256.Sum256(mustJSON(v))
	return h[:8]
}

func runMark(r store.Run) string         { return "r/" + r.Session + "\x00" + r.Run }
func toolMark(t store.ToolWindow) string { return "t/" + t.Session + "\x00" + t.Run + "\x00" + t.Call }

// nextSegment reads, in one read transaction, what comes after cur: up to
// SegmentChanges journal entries, the checkpoints cut through them, and
// the runs and tool windows that changed since they were last sent. need
// is the contents not yet marked as stored. nil: nothing is new.
func (p *Pusher) nextSegment(cur Cursor, holder string) (seg *segment, need []store.Hash, err error) {
	id := MarkID(p.Remote, p.Name)
	s := &segment{N: cur.Seg + 1, Writer: holder, From: cur.Seq, To: cur.Seq, Blobs: map[string]string{}}
	seen := map[string]bool{}
	err = p.Store.View(func(r *store.Reader) error {
		errFull := errors.New("full")
		err := r.Changes(cur.Seq, ^uint64(0), func(c store.Change) error {
			if len(s.Changes) == p.SegmentChanges {
				return errFull
			}
			s.Changes = append(s.Changes, segChange{Seq: c.Seq, B: store.EncodeChange(c)})
			s.To = c.Seq
			if !c.State.Exists() || !c.State.Stored {
				return nil
			}
			k := hashKey(c.State.Hash)
			if seen[k] {
				return nil
			}
			seen[k] = true
			name, err := r.Mark(id, "b/"+k)
			if err != nil {
				return err
			}
			if name != nil {
				s.Blobs[k] = string(name)
			} else {
				need = append(need, c.State.Hash)
			}
			return nil
		})
		if err != nil && err != errFull {
			return err
		}
		err = r.CheckpointsAfterOrd(cur.Seq, cur.Ord, func(cp store.Checkpoint) error {
			if cp.Seq <= s.To {
				s.Checkpoints = append(s.Checkpoints, cp)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return p.changedRecords(r, id, s)
	})
	if err != nil || len(s.Changes)+len(s.Checkpoints)+len(s.Runs)+len(s.Tools) == 0 {
		return nil, nil, err
	}
	return s, need, nil
}

// changedRecords adds to s the runs and tool windows whose record differs
// from the one last sent.
func (p *Pusher) changedRecords(r *store.Reader, id string, s *segment) error {
	changed := func(mark string, v any) (bool, error) {
		old, err := r.Mark(id, mark)
		return string(old) != string(recordHash(v)), err
	}
	err := r.Runs(func(rn store.Run) error {
		ok, err := changed(runMark(rn), rn)
		if ok {
			s.Runs = append(s.Runs, rn)
		}
		return err
	})
	if err != nil {
		return err
	}
	return r.AllToolWindows(func(tw store.ToolWindow) error {
		ok, err := changed(toolMark(tw), tw)
		if ok {
			s.Tools = append(s.Tools, tw)
		}
		return err
	})
}

// uploadBlobs stores each content in need (unless the remote has it), at
// most Parallel at once and InFlight bytes in memory, and names them in
// seg. A content the store no longer has (pruned meanwhile) is left out:
// its entries then read as not stored.
func (p *Pusher) uploadBlobs(ctx context.Context, seg *segment, need []store.Hash, res *PushResult) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	known, err := p.storedBlobs(ctx, len(need))
	if err != nil {
		return err
	}
	mem := semaphore.NewWeighted(p.InFlight)
	slots := make(chan struct{}, p.Parallel)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, h := range need {
		weight := min(max(h.Size, 1), p.InFlight)
		if err := mem.Acquire(ctx, weight); err != nil {
			break
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; mem.Release(weight); wg.Done() }()
			name, uploaded, err := p.uploadBlob(ctx, h, known)
			if err != nil {
				cancel(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if name == "" {
				return
			}
			seg.Blobs[hashKey(h)] = name
			if uploaded {
				res.Blobs++
				res.BlobBytes += h.Size
			} else {
				res.BlobsPresent++
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// listAbove is how many contents to upload make a push list the remote's
// blobs instead of asking for each (a variable for tests).
var listAbove = 2000

// storedBlobs lists the remote's blobs when that costs fewer requests than
// asking for each of n contents (a HEAD each): a new or small remote, and
// a first push of many files. nil: ask for each.
func (p *Pusher) storedBlobs(ctx context.Context, n int) (map[string]bool, error) {
	if n < listAbove {
		return nil, nil
	}
	budget := n / 10 // listing requests, of 1,000 keys each
	known := map[string]bool{}
	pages := 0
	errBudget := errors.New("over budget")
	err := p.Remote.list(ctx, "blobs/", false, func(key string) error {
		if len(known)%1000 == 0 {
			if pages++; pages > budget {
				return errBudget
			}
		}
		known[key[strings.LastIndexByte(key, '/')+1:]] = true
		return nil
	})
	if err == errBudget {
		return nil, nil
	}
	return known, err
}

func (p *Pusher) uploadBlob(ctx context.Context, h store.Hash, known map[string]bool) (name string, uploaded bool, err error) {
	var content []byte
	err = p.Store.View(func(r *store.Reader) (err error) {
		content, err = r.Blob(h)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	name = p.Remote.name(content)
	key := blobKey(name)
	ok := known[name]
	if known == nil {
		if ok, err = p.Remote.exists(ctx, key); err != nil {
			return name, false, err
		}
	}
	if ok {
		return name, false, nil
	}
	_, err = p.Remote.put(ctx, key, content, false, "")
	return name, err == nil, err
}

// putSegment stores seg under its number. If that number is taken, a
// push that died after storing it (this writer holds the lease) wrote it:
// that segment is adopted instead, and the next one goes on from it.
func (p *Pusher) putSegment(ctx context.Context, seg *segment) (*segment, error) {
	key := p.Remote.segKey(p.Name, seg.N)
	_, err := p.Remote.put(ctx, key, seg.encode(), true, "")
	if !errors.Is(err, errPrecondition) {
		return seg, err
	}
	b, _, err := p.Remote.get(ctx, key)
	if err != nil {
		return nil, err
	}
	got, err := decodeSegment(b)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %s: %w", p.Remote.URL, key, err)
	}
	if got.N != seg.N || got.From != seg.From || got.Writer != seg.Writer {
		return nil, fmt.Errorf("remote %s: %s starts at seq %d, not %d: the replica of %s was written by another store", p.Remote.URL, key, got.From, seg.From, p.Name)
	}
	return got, nil
}

// putManifests marks seg's checkpoints replicated; it returns how many.
func (p *Pusher) putManifests(ctx context.Context, seg *segment) (int, error) {
	for _, cp := range seg.Checkpoints {
		m := Manifest{Checkpoint: cp, Segment: seg.N}
		_, err := p.Remote.put(ctx, p.Remote.manifestKey(p.Name, cp.Ord), mustJSON(m), true, "")
		if err != nil && !errors.Is(err, errPrecondition) {
			return 0, err
		}
	}
	return len(seg.Checkpoints), nil
}

// record remembers, in one commit, the cursor, the blobs seg names and the
// records it carried.
func (p *Pusher) record(seg *segment, cur Cursor) error {
	id := MarkID(p.Remote, p.Name)
	return p.Store.Write(func(w *store.Writer) error {
		for k, name := range seg.Blobs {
			if err := w.PutMark(id, "b/"+k, []byte(name)); err != nil {
				return err
			}
		}
		for _, rn := range seg.Runs {
			if err := w.PutMark(id, runMark(rn), recordHash(rn)); err != nil {
				return err
			}
		}
		for _, tw := range seg.Tools {
			if err := w.PutMark(id, toolMark(tw), recordHash(tw)); err != nil {
				return err
			}
		}
		return w.PutMark(id, "cursor", mustJSON(cur))
	})
}
