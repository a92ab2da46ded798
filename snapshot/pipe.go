package snapshot

import "sync"

// pipe carries the capture workers' results to the one writer. It holds up
// to pipeBytes of encoded content (and any one result, however large): the
// workers go on reading and compressing while the writer waits on a
// commit, which a pipe of a few results made them wait through too (a
// 40k-file import used 158% of two cores with four results, 175% with
// room), and a scan of large files still holds only so many of them.
// At 32 MiB the pipe was 20-29 MB of a 200,000-file import's live heap
// at its peak; 8 MiB still holds a thousand results of a source tree's
// sizes.
type pipe struct {
	ch   chan observed
	mu   sync.Mutex
	room sync.Cond // signalled when held drops
	held int64     // encoded bytes in ch
}

var pipeBytes int64 = 8 << 20

const pipeLen = 4096

// newPipe makes a pipe for up to n results (pipeLen at most): a capture of
// a few files does not allocate (and clear) room for thousands.
func newPipe(n int) *pipe {
	p := &pipe{ch: make(chan observed, min(max(n, 1), pipeLen))}
	p.room.L = &p.mu
	return p
}

func (o observed) size() int64 {
	var n int64
	for _, c := range o.chunks {
		n += int64(len(c))
	}
	return n
}

// send waits for room for o, then queues it.
func (p *pipe) send(o observed) {
	n := o.size()
	p.mu.Lock()
	for p.held > 0 && p.held+n > pipeBytes {
		p.room.Wait()
	}
	p.held += n
	p.mu.Unlock()
	p.ch <- o
}

// recv returns the next result; ok is false once the pipe is closed and
// empty.
func (p *pipe) recv() (o observed, ok bool) {
	o, ok = <-p.ch
	if ok {
		p.mu.Lock()
		p.held -= o.size()
		p.mu.Unlock()
		p.room.Broadcast()
	}
	return o, ok
}

// close ends the pipe: call it once every send has returned.
func (p *pipe) close() { close(p.ch) }
