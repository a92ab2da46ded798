package remote

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/store"
)

// ErrUnknown marks a workspace or checkpoint the remote does not hold: bad
// input, as an unknown checkpoint id is.
var ErrUnknown = fault.Sentinel(fault.Invalid, "not in the remote")

// Workspaces lists the names of the workspaces in the remote, sorted.
func (r *Remote) Workspaces(ctx context.Context) ([]string, error) {
	if err := r.ensureFormat(ctx, false); err != nil {
		return nil, err
	}
	var dirs []string
	err := r.list(ctx, "ws/", true, func(key string) error {
		if strings.HasSuffix(key, "/") {
			dirs = append(dirs, key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(dirs))
	for _, d := range dirs {
		b, _, err := r.get(ctx, d+"info")
		if errors.Is(err, errNoObject) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var info struct{ Name string }
		if jsonUnmarshal(b, &info) == nil && ValidName(info.Name) && r.wsPrefix(info.Name) == d {
			names = append(names, info.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Manifests lists the replicated checkpoints of workspace name, oldest
// first; ErrUnknown if the remote holds no such workspace.
func (r *Remote) Manifests(ctx context.Context, name string) ([]Manifest, error) {
	if err := r.ensureFormat(ctx, false); err != nil {
		return nil, err
	}
	if ok, err := r.exists(ctx, r.infoKey(name)); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%w: no workspace %q in %s", ErrUnknown, name, r.URL)
		}
		return nil, err
	}
	var keys []string
	err := r.list(ctx, r.wsPrefix(name)+"ck/", false, func(key string) error {
		if _, ok := hexTail(key); ok {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Manifest, len(keys))
	err = parallel(ctx, 16, len(keys), func(ctx context.Context, i int) error {
		b, _, err := r.get(ctx, keys[i])
		if err == nil {
			err = jsonUnmarshal(b, &out[i])
		}
		return err
	})
	return out, err
}

// Find is the manifest of checkpoint id (the newest one if id is empty).
func Find(ms []Manifest, name, id string) (Manifest, error) {
	if len(ms) == 0 {
		return Manifest{}, fmt.Errorf("%w: workspace %q has no replicated checkpoint yet", ErrUnknown, name)
	}
	if id == "" {
		return ms[len(ms)-1], nil
	}
	for _, m := range ms {
		if m.Checkpoint.ID == id {
			return m, nil
		}
	}
	return Manifest{}, fmt.Errorf("%w: no replicated checkpoint %q in workspace %q", ErrUnknown, id, name)
}

// Import writes the history of workspace name through checkpoint m into
// st, an empty store: the journal up to m's seq, the checkpoints, runs and
// tool windows recorded by then, and every content that history names
// (each checked against its hash). It leaves the workspace state ws, with
// m's checkpoint current; the files are not written (snapshot does that).
//
// When m is the newest thing in the remote (its segment is the last one and
// ends at m's seq), the store's cursor for the remote is set to it, so that
// this store may continue the workspace's replicated history (once it holds
// the lease); otherwise a push of it under the same name is refused.
func (r *Remote) Import(ctx context.Context, st *store.Store, name string, m Manifest, ws store.WorkspaceState) error {
	target := m.Checkpoint
	fp := store.Fingerprint{Sum: target.Fingerprint, Count: target.Files}
	runs := map[string]store.Run{}
	tools := map[string]store.ToolWindow{}
	var lastTo uint64
	for n := uint64(1); n <= m.Segment; n++ {
		b, _, err := r.get(ctx, r.segKey(name, n))
		if err != nil {
			return err
		}
		seg, err := decodeSegment(b)
		if err != nil {
			return fmt.Errorf("remote %s: workspace %s segment %d: %w", r.URL, name, n, err)
		}
		if err := r.importSegment(ctx, st, seg, target, fp); err != nil {
			return err
		}
		lastTo = seg.To
		for _, rn := range seg.Runs {
			runs[runMark(rn)] = rn
		}
		for _, tw := range seg.Tools {
			tools[toolMark(tw)] = tw
		}
	}
	more, err := r.exists(ctx, r.segKey(name, m.Segment+1))
	if err != nil {
		return err
	}
	return st.Write(func(w *store.Writer) error {
		// Otherwise it is where a pull goes on from (Position).
		cur := Cursor{Seq: target.Seq, Ord: target.Ord, Seg: m.Segment, CheckpointID: target.ID, At: time.Now().UTC()}
		mark := "pulled"
		if !more && lastTo == target.Seq {
			mark = "cursor"
		}
		if err := w.PutMark(MarkID(r, name), mark, mustJSON(cur)); err != nil {
			return err
		}
		for _, rn := range runs {
			if rn.StartSeq > target.Seq {
				continue
			}
			if rn.EndSeq > target.Seq {
				// It ended after the checkpoint: here it never did.
				rn.EndID, rn.EndSeq, rn.EndedAt = "", 0, time.Time{}
			}
			if err := w.PutRun(rn); err != nil {
				return err
			}
		}
		for _, tw := range tools {
			if tw.StartSeq > target.Seq {
				continue
			}
			if err := w.PutToolWindow(tw); err != nil {
				return err
			}
		}
		ws.CurrentCheckpointID = target.ID
		return w.PutWorkspace(ws)
	})
}

// importSegment writes one segment's part of the history through target.
func (r *Remote) importSegment(ctx context.Context, st *store.Store, seg *segment, target store.Checkpoint, fp store.Fingerprint) error {
	var want []blobRef
	seen := map[string]bool{}
	err := st.Write(func(w *store.Writer) error {
		for _, sc := range seg.Changes {
			if sc.Seq > target.Seq {
				break
			}
			c, err := store.DecodeChange(sc.Seq, sc.B)
			if err != nil {
				return fmt.Errorf("remote %s: journal entry %d: %w", r.URL, sc.Seq, err)
			}
			if c.State.Exists() && c.State.Stored {
				k := hashKey(c.State.Hash)
				name, ok := seg.Blobs[k]
				c.State.Stored = ok
				if ok && !seen[k] {
					seen[k] = true
					want = append(want, blobRef{c.State.Hash, name})
				}
			}
			if err := w.ImportChange(c, fp); err != nil {
				return err
			}
		}
		for _, cp := range seg.Checkpoints {
			if cp.Ord <= target.Ord && cp.Seq <= target.Seq {
				if err := w.ImportCheckpoint(cp); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.fetchBlobs(ctx, st, want)
}

type blobRef struct {
	hash store.Hash
	name string
}

// fetchParallel is how many contents a clone or a pull fetches at once:
// each is a small GET whose time is mostly the server's and the round
// trip's.
const fetchParallel = 32

// fetchBlobs downloads the contents st does not have, fetchParallel at a
// time, and stores them in batches.
func (r *Remote) fetchBlobs(ctx context.Context, st *store.Store, want []blobRef) error {
	var mu sync.Mutex
	var batch []blobRef
	var chunks [][][]byte
	var size int64
	flush := func() error {
		err := st.Write(func(w *store.Writer) error {
			for i, b := range batch {
				if err := w.PutBlob(b.hash, chunks[i]); err != nil {
					return err
				}
			}
			return nil
		})
		batch, chunks, size = batch[:0], chunks[:0], 0
		return err
	}
	err := parallel(ctx, fetchParallel, len(want), func(ctx context.Context, i int) error {
		ref := want[i]
		var have bool
		if err := st.View(func(rd *store.Reader) (err error) { have, err = rd.HasBlob(ref.hash); return err }); err != nil || have {
			return err
		}
		b, _, err := r.get(ctx, blobKey(ref.name))
		if err != nil {
			return err
		}
		if store.HashBytes(b) != ref.hash || r.name(b) != ref.name {
			return fmt.Errorf("remote %s: blob %s does not hold the content its name says", r.URL, ref.name)
		}
		enc := store.EncodeBlob(b)
		mu.Lock()
		defer mu.Unlock()
		batch, chunks, size = append(batch, ref), append(chunks, enc), size+int64(len(b))
		if size > 16<<20 || len(batch) >= 512 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(batch) > 0 {
		return flush()
	}
	return nil
}

// parallel runs fn(0..n-1), at most k at once, stopping at the first error.
func parallel(ctx context.Context, k, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	slots := make(chan struct{}, k)
	var wg sync.WaitGroup
	for i := 0; i < n && ctx.Err() == nil; i++ {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := fn(ctx, i); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}
