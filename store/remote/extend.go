package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/store"
)

// ErrDiverged marks a store whose history is not a prefix of the remote's
// history of a workspace: a pull cannot bring it the rest.
var ErrDiverged = fault.Sentinel(fault.Refused, "the histories have diverged")

// Position is how far st's history is the remote's history of workspace
// name: the further of its push cursor and of its last pull (a pull that
// stopped short of the remote's end leaves its position in a mark of its
// own, so that a push never goes on from it). Zero: st shares no history
// with it.
func Position(st *store.Store, r *Remote, name string) (Cursor, error) {
	cur, err := ReadCursor(st, r, name)
	if err != nil {
		return cur, err
	}
	var pulled Cursor
	err = st.View(func(rd *store.Reader) error {
		b, err := rd.Mark(MarkID(r, name), "pulled")
		if err != nil || b == nil {
			return err
		}
		return json.Unmarshal(b, &pulled)
	})
	if err == nil && pulled.Seq > cur.Seq {
		return pulled, nil
	}
	return cur, err
}

// Extended is what Extend brought into a store.
type Extended struct {
	Changes     int   // journal entries
	Checkpoints int   // checkpoints
	Blobs       int   // contents the store did not have
	BlobBytes   int64 // their size
	// Continues: the store now holds the remote's whole history of the
	// workspace, so it may push on under the name (once it holds the
	// lease).
	Continues bool
}

// pullPart is what a pull reads from the remote before it writes anything.
type pullPart struct {
	changes     []store.Change
	checkpoints []store.Checkpoint
	runs        map[string]store.Run
	tools       map[string]store.ToolWindow
	want        []blobRef
	lastTo      uint64
}

// Extend brings into st, whose history is the remote's history of
// workspace name through from (Position), that history on through
// checkpoint m: the journal entries, checkpoints, runs and tool windows
// after from, and every content they name (each checked against its
// hash). Everything is downloaded before anything is written, so a remote
// that fails half-way leaves the journal as it was (contents already
// stored are only unused). The files are not written (snapshot's
// FastForward does that).
func (r *Remote) Extend(ctx context.Context, st *store.Store, name string, from Cursor, m Manifest) (Extended, error) {
	var out Extended
	part, err := r.readAfter(ctx, name, from, m)
	if err != nil {
		return out, err
	}
	var had int
	for _, b := range part.want {
		st.View(func(rd *store.Reader) error {
			if ok, _ := rd.HasBlob(b.hash); ok {
				had++
			} else {
				out.BlobBytes += b.hash.Size
			}
			return nil
		})
	}
	out.Blobs = len(part.want) - had
	if err := r.fetchBlobs(ctx, st, part.want); err != nil {
		return out, err
	}
	more, err := r.exists(ctx, r.segKey(name, m.Segment+1))
	if err != nil {
		return out, err
	}
	out.Continues = !more && part.lastTo == m.Checkpoint.Seq
	out.Changes, out.Checkpoints = len(part.changes), len(part.checkpoints)
	return out, r.writeAfter(st, name, part, m, out.Continues)
}

// readAfter reads segments from the one holding from.Seq through
// m.Segment, and keeps what comes after from up to m's checkpoint.
func (r *Remote) readAfter(ctx context.Context, name string, from Cursor, m Manifest) (*pullPart, error) {
	target := m.Checkpoint
	part := &pullPart{runs: map[string]store.Run{}, tools: map[string]store.ToolWindow{}, lastTo: from.Seq}
	seen := map[string]bool{}
	for n := max(from.Seg, 1); n <= m.Segment; n++ {
		b, _, err := r.get(ctx, r.segKey(name, n))
		if err != nil {
			return nil, err
		}
		seg, err := decodeSegment(b)
		if err != nil {
			return nil, fmt.Errorf("remote %s: workspace %s segment %d: %w", r.URL, name, n, err)
		}
		if seg.From > part.lastTo || seg.To < from.Seq {
			return nil, fmt.Errorf("%w: segment %d of %s in %s holds journal entries %d to %d, and this store's history is the remote's through %d",
				ErrDiverged, n, name, r.URL, seg.From+1, seg.To, from.Seq)
		}
		for _, sc := range seg.Changes {
			if sc.Seq <= from.Seq || sc.Seq > target.Seq {
				continue
			}
			c, err := store.DecodeChange(sc.Seq, sc.B)
			if err != nil {
				return nil, fmt.Errorf("remote %s: journal entry %d: %w", r.URL, sc.Seq, err)
			}
			if c.State.Exists() && c.State.Stored {
				k := hashKey(c.State.Hash)
				bn, ok := seg.Blobs[k]
				c.State.Stored = ok
				if ok && !seen[k] {
					seen[k] = true
					part.want = append(part.want, blobRef{c.State.Hash, bn})
				}
			}
			part.changes = append(part.changes, c)
		}
		for _, cp := range seg.Checkpoints {
			if cp.Ord > from.Ord && cp.Ord <= target.Ord && cp.Seq <= target.Seq {
				part.checkpoints = append(part.checkpoints, cp)
			}
		}
		for _, rn := range seg.Runs {
			part.runs[runMark(rn)] = rn
		}
		for _, tw := range seg.Tools {
			part.tools[toolMark(tw)] = tw
		}
		part.lastTo = seg.To
	}
	return part, nil
}

// writeAfter journals what readAfter read, in commits of at most a
// segment's worth of entries (each with the checkpoints cut by then), and
// last the runs, tool windows and the store's new position.
func (r *Remote) writeAfter(st *store.Store, name string, part *pullPart, m Manifest, continues bool) error {
	target := m.Checkpoint
	fp := store.Fingerprint{Sum: target.Fingerprint, Count: target.Files}
	const perCommit = 4096
	cps := part.checkpoints
	for i := 0; i < len(part.changes) || len(cps) > 0; i += perCommit {
		chunk := part.changes[min(i, len(part.changes)):min(i+perCommit, len(part.changes))]
		last := target.Seq
		if i+perCommit < len(part.changes) {
			last = chunk[len(chunk)-1].Seq
		}
		err := st.Write(func(w *store.Writer) error {
			for _, c := range chunk {
				if err := w.ImportChange(c, fp); err != nil {
					return err
				}
			}
			for len(cps) > 0 && cps[0].Seq <= last {
				if err := w.ImportCheckpoint(cps[0]); err != nil {
					return err
				}
				cps = cps[1:]
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return st.Write(func(w *store.Writer) error {
		cur := Cursor{Seq: target.Seq, Ord: target.Ord, Seg: m.Segment, CheckpointID: target.ID, At: time.Now().UTC()}
		mark := "pulled"
		if continues {
			mark = "cursor"
		}
		if err := w.PutMark(MarkID(r, name), mark, mustJSON(cur)); err != nil {
			return err
		}
		for _, rn := range part.runs {
			if rn.StartSeq > target.Seq {
				continue
			}
			if rn.EndSeq > target.Seq {
				rn.EndID, rn.EndSeq, rn.EndedAt = "", 0, time.Time{}
			}
			if err := w.PutRun(rn); err != nil {
				return err
			}
		}
		for _, tw := range part.tools {
			if tw.StartSeq <= target.Seq {
				if err := w.PutToolWindow(tw); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
