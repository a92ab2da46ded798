package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/ckptdev/ckpt/integration/api"
)

// EventStream is a subscription to a workspace's events.
type EventStream struct {
	wc   *wireConn
	stop func() bool // stops watching the context
	r    *bufio.Reader
}

// Events subscribes to the events of the workspace at root. It returns
// once the daemon has the subscription in place: every event after that
// is delivered (or counted in a "lost" event). ctx bounds the whole stream.
func (c *Client) Events(ctx context.Context, root string) (*EventStream, error) {
	req := wireRequest{method: methodGet, target: "/v1/events?" + url.Values{"workspace": {root}}.Encode(), accept: "text/event-stream"}
	wc, ans, stop, err := c.exchange(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("ckptd at %s: %w", c.socket, err)
	}
	c.checkVersion(ans)
	if ans.status != 200 {
		defer wc.nc.Close()
		defer stop()
		b, _ := io.ReadAll(io.LimitReader(ans.body, maxErrorBody))
		return nil, answerError(ans, b, root)
	}
	return &EventStream{wc: wc, stop: stop, r: bufio.NewReader(ans.body)}, nil
}

// Next waits for the next event. It fails when the stream ends (the daemon
// shut down, the workspace is no longer served, ctx ended).
func (s *EventStream) Next() (api.Event, error) {
	var data strings.Builder
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return api.Event{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if data.Len() == 0 {
				continue // the end of a comment or of an event without data
			}
			var ev api.Event
			if err := json.Unmarshal([]byte(data.String()), &ev); err != nil {
				return api.Event{}, fmt.Errorf("malformed event: %w", err)
			}
			return ev, nil
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
		// "event:" repeats the JSON's type; comments and other fields are skipped.
	}
}

// Close ends the subscription.
func (s *EventStream) Close() error {
	s.stop()
	return s.wc.nc.Close()
}
