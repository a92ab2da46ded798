package snapshot

import (
	"testing"
	"time"
)

// The pipe holds one result of any size, and no more than pipeBytes in
// all once it holds something: a send past that waits for a recv.
func TestPipeHoldsAtMostItsBytes(t *testing.T) {
	p := newPipe(pipeLen)
	big := observed{path: "big", chunks: [][]byte{make([]byte, pipeBytes+1)}}
	half := observed{path: "half", chunks: [][]byte{make([]byte, pipeBytes/2)}}
	p.send(big) // over the limit, but the pipe is empty
	sent := make(chan string)
	go func() {
		p.send(half)
		sent <- "half"
		p.send(observed{path: "empty"}) // no content: never waits
		sent <- "empty"
		p.close()
	}()
	select {
	case s := <-sent:
		t.Fatalf("%s was sent while the pipe held more than pipeBytes", s)
	case <-time.After(50 * time.Millisecond):
	}
	if o, ok := p.recv(); !ok || o.path != "big" {
		t.Fatalf("recv = %q, %v; want big", o.path, ok)
	}
	for _, want := range []string{"half", "empty"} {
		select {
		case s := <-sent:
			if s != want {
				t.Fatalf("sent %s, want %s", s, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s was not sent after the pipe had room", want)
		}
	}
	var got []string
	for o, ok := p.recv(); ok; o, ok = p.recv() {
		got = append(got, o.path)
	}
	if len(got) != 2 || got[0] != "half" || got[1] != "empty" || p.held != 0 {
		t.Fatalf("drained %v, held %d; want [half empty], 0", got, p.held)
	}
}
