package store

import (
	"bytes"
	"container/list"
	"sync"
)

// recentContents keeps the contents last written or read as delta bases,
// so that the next version of a file edited again and again is encoded
// against its previous version without rebuilding that version down its
// delta chain (up to maxDeltaDepth lookups, decompressions and copies).
// It is bounded by the bytes it holds (recentBytes) and forgets the least
// recently used first. A content is named by its hash, so what it holds is
// never stale; how the content is stored may change (Repack, Recompress,
// a sweep), so DeltaBase checks the chain depth it remembers against the
// stored chunk's header before it uses an entry (stillStored).
type recentContents struct {
	mu    sync.Mutex
	bytes int
	byKey map[Hash]*list.Element // of *recentContent
	lru   list.List              // least recently used at the front
}

type recentContent struct {
	base DeltaBase // its content is never changed once kept
	root Hash      // the whole blob at the root of its chain (itself at depth 0)
}

const (
	// recentBytes bounds the contents kept.
	recentBytes = 4 << 20
	// recentLargest is the largest content kept: a few large files do not
	// push out the many small ones an agent edits.
	recentLargest = 256 << 10
)

// get returns the entry for h, marking it used.
func (c *recentContents) get(h Hash) (recentContent, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[h]
	if !ok {
		return recentContent{}, false
	}
	c.lru.MoveToBack(e)
	return *e.Value.(*recentContent), true
}

// put keeps content (a copy of it) as stored at depth on a chain whose
// root is root, forgetting the least recently used contents beyond the
// bound.
func (c *recentContents) put(h Hash, content []byte, depth int, root Hash) {
	if len(content) > recentLargest || int64(len(content)) != h.Size || depth > maxDeltaDepth {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = make(map[Hash]*list.Element)
	}
	if e, ok := c.byKey[h]; ok {
		rc := e.Value.(*recentContent)
		rc.base.depth, rc.root = depth, root
		c.lru.MoveToBack(e)
		return
	}
	rc := &recentContent{base: DeltaBase{hash: h, content: bytes.Clone(content), depth: depth}, root: root}
	c.byKey[h] = c.lru.PushBack(rc)
	c.bytes += len(content)
	for c.bytes > recentBytes {
		e := c.lru.Front()
		old := e.Value.(*recentContent)
		c.lru.Remove(e)
		delete(c.byKey, old.base.hash)
		c.bytes -= len(old.base.content)
	}
}

// forget drops h's entry: the store no longer holds it as remembered.
func (c *recentContents) forget(h Hash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[h]; ok {
		c.lru.Remove(e)
		delete(c.byKey, h)
		c.bytes -= len(e.Value.(*recentContent).base.content)
	}
}

// KeepRecent remembers content, whose hash is h and whose encoding is
// chunks (EncodeBlobAgainst's, against base), as the likely base of the
// next version of the same file. Capture calls it once it has encoded a
// content; nothing is remembered for an encoding the store cannot chain
// from (more than one chunk). It is safe to call from many goroutines.
func (s *Store) KeepRecent(h Hash, content []byte, chunks [][]byte, base DeltaBase) {
	if len(chunks) != 1 || len(chunks[0]) == 0 {
		return
	}
	if c := chunks[0]; c[0] == codecDelta {
		if len(c) < deltaHeaderLen || getHash(c[1:]) != base.hash {
			return
		}
		s.recent.put(h, content, int(c[25]), base.root)
		return
	}
	s.recent.put(h, content, 0, h)
}

// KeepRecentAny is KeepRecent for an encoding EncodeBlobAgainstAny chose
// among bases: the base its delta names, if it is one.
func (s *Store) KeepRecentAny(h Hash, content []byte, chunks [][]byte, bases []DeltaBase) {
	var base DeltaBase
	if len(chunks) == 1 && len(chunks[0]) >= deltaHeaderLen && chunks[0][0] == codecDelta {
		named := getHash(chunks[0][1:])
		for _, b := range bases {
			if b.hash == named {
				base = b
				break
			}
		}
	}
	s.KeepRecent(h, content, chunks, base)
}

// recentBase is the delta base for h from the contents kept, checked
// against the store: h still stored at the depth remembered and, for a
// chain as long as it may get, its root still stored whole.
func (r *Reader) recentBase(h Hash) (DeltaBase, bool) {
	if r.recent == nil {
		return DeltaBase{}, false
	}
	rc, ok := r.recent.get(h)
	if !ok {
		return DeltaBase{}, false
	}
	if !r.storedAtDepth(h, rc.base.depth) {
		r.recent.forget(h)
		return DeltaBase{}, false
	}
	if rc.base.depth < maxDeltaDepth {
		b := rc.base
		b.root = rc.root
		return b, true
	}
	root, ok := r.recent.get(rc.root)
	if !ok || root.base.depth != 0 || !r.storedAtDepth(rc.root, 0) {
		return DeltaBase{}, false
	}
	b := root.base
	b.root = rc.root
	return b, true
}

// storedAtDepth reports whether h's first chunk is stored, and is a delta
// of chain depth depth (a whole blob when depth is 0).
func (r *Reader) storedAtDepth(h Hash, depth int) bool {
	ok := false
	err := r.chunk0(h, func(v []byte) error {
		switch {
		case len(v) == 0:
		case v[0] == codecDelta:
			ok = len(v) >= deltaHeaderLen && int(v[25]) == depth
		default:
			ok = depth == 0
		}
		return nil
	})
	return err == nil && ok
}

// keepRecent remembers a content r read as a delta base.
func (r *Reader) keepRecent(h Hash, content []byte, depth int, root Hash) {
	if r.recent != nil {
		r.recent.put(h, content, depth, root)
	}
}
