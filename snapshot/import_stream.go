package snapshot

import (
	"context"
	"io/fs"
	"os"
	"path"
	"sync"
	"sync/atomic"

	"github.com/ckptdev/ckpt/store"
)

// importStream is the first import of a store that holds no entry: the
// walk, the readers and the writer run at once, joined by bounded queues,
// so the import holds no per-file list (a reconcile keeps every path's
// stat and entry in memory to compare them: about a kilobyte a file,
// which at a million files is a gigabyte), and the reading starts with
// the first directory listed instead of after the last. Every path is
// new, so nothing is compared and nothing is deleted. Paths the walk or a
// read could not read go into the unreadable set, as with reconcile.
// Contents are stored with the fast codec; Recompress turns them into zstd
// ones later.
func (ws *Workspace) importStream(ctx context.Context, walk WalkFunc) error {
	root, err := os.OpenRoot(ws.root)
	if err != nil {
		return err
	}
	defer root.Close()
	// The contents go in with the fast codec (store.EncodeBlobFast):
	// compression was half of a first import's CPU with zstd. The mark
	// goes first, so that an import cut short leaves it too.
	if err := ws.st.MarkFast(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	jobs := make(chan []candidate, 4096/importDirBatch)
	results := newPipe(pipeLen)
	ws.importReaders(root, jobs, results)
	iw := &importWalk{unread: unreadableSet{}, links: linkIndex{}}
	walkDone := make(chan error, 1)
	go func() { walkDone <- iw.run(ctx, walk, jobs) }()

	readUnread := unreadableSet{}
	werr := ws.st.Write(func(w *store.Writer) error {
		return ws.journalImport(ctx, w, results, &iw.walked, readUnread)
	})
	if werr != nil {
		cancel()
	}
	for _, ok := results.recv(); ok; _, ok = results.recv() { // after a failed write: let the readers end
	}
	err = <-walkDone
	if werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	for p, why := range readUnread {
		iw.unread[p] = why
	}
	ws.links = iw.links
	ws.unreadable = iw.unread
	return nil
}

// importReaders starts the import's readers: each reads the batches of
// jobs into results, and results closes once they all have ended.
func (ws *Workspace) importReaders(root *os.Root, jobs <-chan []candidate, results *pipe) {
	var readers sync.WaitGroup
	for range ws.opts.Workers {
		readers.Add(1)
		go func() {
			defer readers.Done()
			dirs := dirCache{root: root}
			defer dirs.closeAll()
			for batch := range jobs {
				for _, c := range batch {
					r, at, name := dirs.lookupAt(c.path)
					results.send(ws.read(r, at, name, c))
				}
			}
		}()
	}
	go func() { readers.Wait(); results.close() }()
}

// importWalk is the walk of a first import: what it counted, what it
// could not read and the hard links it saw.
type importWalk struct {
	walked atomic.Int64
	unread unreadableSet
	links  linkIndex
}

// run walks the workspace into jobs and closes jobs. The walk hands over
// a directory's entries one after another: they go to the readers in
// batches of one directory's, so that a reader opens the directory once
// for them all (each reader reading every fourth file, each of the four
// opened every directory).
func (iw *importWalk) run(ctx context.Context, walk WalkFunc, jobs chan<- []candidate) error {
	defer close(jobs)
	var batch []candidate
	batchDir := ""
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		select {
		case jobs <- batch:
			batch = nil
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := walk(ctx, func(rel string, info fs.FileInfo) error {
		if werr := walkError(info); werr != nil {
			iw.unread[rel] = errText(werr)
			return nil
		}
		if id, ok := linkedID(info); ok {
			iw.links[id] = append(iw.links[id], rel)
		}
		iw.walked.Add(1)
		if dir := path.Dir(rel); dir != batchDir || len(batch) == importDirBatch {
			if err := flush(); err != nil {
				return err
			}
			batchDir = dir
		}
		batch = append(batch, candidate{path: rel, info: info, fast: true})
		return nil
	})
	if err == nil {
		err = flush()
	}
	return err
}

// journalImport stores and journals what the readers send, in bounded
// batches: each in the order its files were written, nothing held per
// file beyond one batch.
func (ws *Workspace) journalImport(ctx context.Context, w *store.Writer, results *pipe, walked *atomic.Int64, unread unreadableSet) error {
	var batch journalBatch
	seen := store.NewImportedBlobs()
	done := 0
	for o, ok := results.recv(); ok; o, ok = results.recv() {
		if o.err == nil && o.chunks != nil {
			if err := w.PutImportedBlob(seen, o.state.Hash, o.chunks); err != nil {
				return err
			}
			o.chunks = nil // stored: stage has only the entry to do
		}
		if err := ws.stage(w, &batch, candidate{path: o.path}, o, unread); err != nil {
			return err
		}
		if len(batch.written)+len(batch.vanished) >= importBatch {
			if err := batch.record(w, nil, store.Attr{}); err != nil {
				return err
			}
			batch = journalBatch{written: batch.written[:0], vanished: batch.vanished[:0]}
		}
		done++
		if ws.opts.Progress != nil && done%500 == 0 {
			ws.opts.Progress(done, int(walked.Load()))
		}
	}
	if ws.opts.Progress != nil && done > 1000 {
		ws.opts.Progress(done, done)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return batch.record(w, nil, store.Attr{})
}

// importDirBatch is how many files of one directory a first import's
// reader gets at a time.
const importDirBatch = 64

// importBatch is how many files a first import journals at a time.
const importBatch = 1024
