package client

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ckptdev/ckpt/integration/api"
)

func TestEventStreamParsing(t *testing.T) {
	text := ": hello\n\nevent: change\ndata: {\"type\":\"change\",\"workspace\":\"/w\",\"change\":{\"seq\":1,\"path\":\"a\",\"kind\":\"added\",\"by\":\"person\"}}\n\n: keep-alive\n\nevent: lost\ndata: {\"type\":\"lost\",\"lost\":3}\n\n"
	es := &EventStream{r: bufioReader(text)}
	ev, err := es.Next()
	if err != nil || ev.Type != api.EventChange || ev.Change.Path != "a" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	ev, err = es.Next()
	if err != nil || ev.Type != api.EventLost || ev.Lost != 3 {
		t.Fatalf("second event %+v, %v", ev, err)
	}
	if _, err := es.Next(); err == nil {
		t.Fatal("an event past the end")
	}
	if _, err := (&EventStream{r: bufioReader("data: {\n\n")}).Next(); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("malformed data: %v", err)
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }
