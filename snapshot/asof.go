package snapshot

import (
	"errors"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// A run can end as of a moment already past (the person interrupted the
// agent, and ckpt learns of it later): its end checkpoint then stands at
// the journal position of that moment, and the entries after it, captured
// while the run was still open, are no longer the run's.

var errStopWalk = errors.New("stop")

// SeqAsOf is the journal position of moment t, after from: just before
// the first entry after from whose change was made after t (ChangeTime),
// or the head when there is none. Captures journal their changes in the
// order they were made, so every entry after the position was made after
// t; an entry a capture saw late, after one made later, counts as after
// t too.
func (tx *Tx) SeqAsOf(from uint64, t time.Time) (uint64, error) {
	head := tx.w.Head()
	if from >= head {
		return head, nil
	}
	at := head
	err := tx.w.Changes(from, head, func(c store.Change) error {
		if ChangeTime(c).After(t) {
			at = c.Seq - 1
			return errStopWalk
		}
		return nil
	})
	if errors.Is(err, errStopWalk) {
		err = nil
	}
	return at, err
}

// CutAt records a checkpoint at journal seq (the head, if seq is past it):
// the workspace as it stood after that entry. Its fingerprint is the live
// one rolled back over every path the entries after seq changed.
func (tx *Tx) CutAt(seq uint64, reason, message string, attr store.Attr) (store.Checkpoint, error) {
	if seq >= tx.w.Head() {
		return tx.Cut(reason, message, attr)
	}
	fp, err := tx.fingerprintAt(seq)
	if err != nil {
		return store.Checkpoint{}, err
	}
	cp, err := putCheckpointAt(tx.w, seq, fp, reason, message, attr, tx.ws.unreadable.paths())
	if err == nil {
		tx.cuts = append(tx.cuts, cp)
	}
	return cp, err
}

// fingerprintAt is the fingerprint of the workspace at journal seq.
func (tx *Tx) fingerprintAt(seq uint64) (store.Fingerprint, error) {
	head := tx.w.Head()
	var paths []string
	seen := map[string]bool{}
	err := tx.w.Changes(seq, head, func(c store.Change) error {
		if !seen[c.Path] {
			seen[c.Path] = true
			paths = append(paths, c.Path)
		}
		return nil
	})
	if err != nil {
		return store.Fingerprint{}, err
	}
	fp := tx.w.Fingerprint()
	sk := tx.w.NewSeeker()
	defer sk.Close()
	for _, p := range paths {
		now, err := sk.StateAt(p, head)
		if err != nil {
			return fp, err
		}
		then, err := sk.StateAt(p, seq)
		if err != nil {
			return fp, err
		}
		fp = roll(fp, p, now, then)
	}
	return fp, nil
}

// Disown takes run session/run (and its tool calls) out of the
// attribution of every journal entry after seq: they were captured after
// the run ended. Another run or call open at the time stays; an entry left
// with none is the person's.
func (tx *Tx) Disown(seq uint64, session, run string) error {
	var owned []store.Change
	err := tx.w.Changes(seq, tx.w.Head(), func(c store.Change) error {
		for _, p := range c.Attr.Parties() {
			if p.Session == session && p.Run == run {
				owned = append(owned, c)
				break
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range owned {
		if err := tx.w.SetAttr(c.Seq, withoutParty(c.Attr, session, run)); err != nil {
			return err
		}
	}
	return nil
}

// withoutParty is a without the run session/run and its tool calls.
func withoutParty(a store.Attr, session, run string) store.Attr {
	var keep []store.Party
	for _, p := range a.Parties() {
		if p.Session != session || p.Run != run {
			keep = append(keep, p)
		}
	}
	out := store.Attr{Restore: a.Restore}
	if len(keep) > 0 {
		out.Session, out.Run, out.Call = keep[0].Session, keep[0].Run, keep[0].Call
		if len(keep) > 1 {
			out.Shared = keep[1:]
		}
	}
	return out
}
