package snapshot

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/store"
)

func numCPU() int { return runtime.GOMAXPROCS(0) }

// racyWindow: a file whose mtime is within this of the moment its state was
// recorded may have changed again within the same timestamp tick, so its
// stat tuple cannot be trusted and the next scan re-hashes it.
const racyWindow = 2 * time.Second

// statState fills the stat tuple of a state from an lstat result.
func statState(info fs.FileInfo) store.State {
	st := store.State{Mode: info.Mode().Perm(), Hash: store.Hash{Size: info.Size()}}
	switch {
	case info.Mode().IsRegular():
		st.Kind = store.File
	case info.Mode()&fs.ModeSymlink != 0:
		st.Kind = store.Symlink
	}
	st.Mtime = info.ModTime().UnixNano()
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		st.Ctime = sys.Ctim.Sec*1e9 + sys.Ctim.Nsec
		st.Inode = sys.Ino
	}
	return st
}

// unchanged reports whether the disk's stat tuple proves prev is still
// what the path holds.
func unchanged(prev, disk store.State) bool {
	return prev.Kind == disk.Kind && prev.Mode == disk.Mode &&
		prev.Hash.Size == disk.Hash.Size && prev.Mtime == disk.Mtime &&
		prev.Ctime == disk.Ctime && prev.Inode == disk.Inode &&
		prev.Mtime < prev.Recorded-int64(racyWindow)
}

// observed is what reading one path found.
type observed struct {
	path   string
	state  store.State
	chunks [][]byte // encoded content to store; nil when not stored
	err    error    // the path could not be read (it is recorded unstored)
}

// read reads, hashes and (unless too large) encodes the candidate's path,
// re-reading when it changed while being read. The path is name under
// root: an os.Root on the workspace or on one of its directories, so a
// symlink that appears in a parent directory meanwhile can never make ckpt
// read (and store) content from outside it. at, when not nil, is the
// directory name is in, open (readContentAt).
func (ws *Workspace) read(root *os.Root, at *os.File, name string, c candidate) observed {
	path, info := c.path, c.info
	var scratch *[]byte
	if c.fast { // the fast codec copies what it keeps: the buffer can serve again
		scratch = takeReadBuffer()
		defer putReadBuffer(scratch)
	}
	for attempt := 0; ; attempt++ {
		st := statState(info)
		data, err := ws.readContentAt(at, root, name, st, scratch)
		// The file read is the one stat'ed, unchanged while it was read,
		// if its descriptor's stat still matches: that costs no second
		// walk of the path. Otherwise the path's lstat says what it holds
		// now (a symlink is read as one, a deleted file recorded deleted).
		after := data.info
		if after == nil || !sameStat(st, statState(after)) {
			var lerr error
			if after, lerr = root.Lstat(name); lerr != nil {
				return observed{path: path, err: lerr}
			}
		}
		if attempt < 3 && !sameStat(st, statState(after)) {
			info = after
			continue
		}
		st.Recorded = time.Now().UnixNano()
		if err != nil {
			return observed{path: path, state: st, err: err}
		}
		if data.stored {
			st.Stored = true
			st.Hash = data.hash
			return observed{path: path, state: st, chunks: ws.encode(data, c)}
		}
		st.Hash = data.hash
		return observed{path: path, state: st}
	}
}

// encode compresses a content to store: as a delta against the path's
// previous version when that is stored (a capture mostly sees small edits,
// and a delta keeps the store near the size of the history's changes, not
// of its versions), else whole. It returns nil, and encodes nothing, when
// the content is stored already (a file touched, or put back as it was).
func (ws *Workspace) encode(data content, c candidate) [][]byte {
	prev := c.prev.Hash
	hadStored := c.hadPrev && c.prev.Stored
	if hadStored && prev == data.hash {
		return nil // the entry's own blob, which no sweep deletes
	}
	if c.fast {
		return store.EncodeBlobFast(data.bytes)
	}
	if !hadStored {
		return ws.encodeNew(data, c)
	}
	if prev.Size > store.ChunkSize || data.hash.Size > store.ChunkSize {
		chunks := store.EncodeBlob(data.bytes)
		ws.st.KeepRecent(data.hash, data.bytes, chunks, store.DeltaBase{})
		return chunks
	}
	var (
		base   store.DeltaBase
		stored bool
	)
	err := ws.st.View(func(r *store.Reader) (err error) {
		if stored, err = r.HasBlob(data.hash); err != nil || stored {
			return err
		}
		base, err = r.DeltaBase(prev)
		return err
	})
	if err == nil && stored {
		return nil
	}
	// An error here costs only the delta: the write reports its own.
	chunks := store.EncodeBlobAgainst(data.bytes, base)
	// The next version of the file is likely encoded against this one.
	ws.st.KeepRecent(data.hash, data.bytes, chunks, base)
	return chunks
}

func sameStat(a, b store.State) bool {
	return a.Kind == b.Kind && a.Hash.Size == b.Hash.Size && a.Mtime == b.Mtime &&
		a.Ctime == b.Ctime && a.Inode == b.Inode && a.Mode == b.Mode
}

type content struct {
	hash   store.Hash
	bytes  []byte
	stored bool
	info   fs.FileInfo // the opened file's stat after the read; nil for a symlink
}

func (ws *Workspace) content(root *os.Root, path string, st store.State) (content, error) {
	return ws.readContent(root, path, st, nil)
}

// readContent is content, reading a file into *scratch (grown if need be,
// and left there for the next read) when scratch is not nil.
func (ws *Workspace) readContent(root *os.Root, path string, st store.State, scratch *[]byte) (content, error) {
	if st.Kind == store.Symlink {
		target, err := root.Readlink(path)
		if err != nil {
			return content{}, err
		}
		b := []byte(target)
		return content{hash: store.HashBytes(b), bytes: b, stored: true}, nil
	}
	f, err := root.Open(path)
	if err != nil {
		return content{}, err
	}
	defer f.Close()
	if ws.opts.MaxFileSize > 0 && st.Hash.Size > ws.opts.MaxFileSize {
		h := store.NewHasher()
		if _, err := io.Copy(h, f); err != nil {
			return content{}, err
		}
		info, err := f.Stat()
		return content{hash: h.Sum(), info: info}, err
	}
	b := readBuffer(scratch, st.Hash.Size)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return content{}, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
			if scratch != nil {
				*scratch = b
			}
		}
	}
	info, err := f.Stat()
	return content{hash: store.HashBytes(b), bytes: b, stored: true, info: info}, err
}

// readBuffer is an empty buffer with room for a file of size bytes and
// one more (a read that fills it has not seen the end): the caller's
// scratch when it is large enough, else a new one that becomes the
// scratch. A nil scratch always gets a new buffer.
func readBuffer(scratch *[]byte, size int64) []byte {
	switch {
	case scratch == nil:
		return make([]byte, 0, size+1)
	case int64(cap(*scratch)) > size:
		return (*scratch)[:0]
	}
	*scratch = make([]byte, 0, size+1)
	return *scratch
}
