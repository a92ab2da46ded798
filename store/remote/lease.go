package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ckptdev/ckpt/fault"
)

// Lease is the one-writer lock of a workspace in a remote: an object that
// only its holder rewrites (If-Match its ETag), taken with If-None-Match:
// * when there is none, or with If-Match when the one there has expired.
type Lease struct {
	Holder    string    `json:"holder"` // the store that writes (a random id kept in it)
	Host      string    `json:"host"`
	Root      string    `json:"root"`
	TakenAt   time.Time `json:"taken_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// ErrOtherWriter marks a refused lease: another store writes the workspace.
var ErrOtherWriter = fault.Sentinel(fault.Refused, "another writer holds the workspace")

// Acquire takes or renews the lease of workspace ws for holder, valid for
// ttl. Another holder's lease that has not expired is refused with
// ErrOtherWriter, naming it.
func (r *Remote) Acquire(ctx context.Context, ws, holder, root string, ttl time.Duration) error {
	host, _ := os.Hostname()
	now := time.Now().UTC()
	want := Lease{Holder: holder, Host: host, Root: root, TakenAt: now, ExpiresAt: now.Add(ttl)}
	key := r.leaseKey(ws)
	for range 4 {
		b, etag, err := r.get(ctx, key)
		if errors.Is(err, errNoObject) {
			if _, err = r.put(ctx, key, mustJSON(want), true, ""); errors.Is(err, errPrecondition) {
				continue // someone took it meanwhile: look again
			}
			return err
		}
		if err != nil {
			return err
		}
		var cur Lease
		if err := jsonUnmarshal(b, &cur); err != nil {
			return fmt.Errorf("remote %s: the lease of %s is not a lease: %w", r.URL, ws, err)
		}
		if cur.Holder != holder && now.Before(cur.ExpiresAt) {
			return fmt.Errorf("%w: workspace %s in %s is written by %s (host %s, %s) until %s",
				ErrOtherWriter, ws, r.URL, cur.Root, cur.Host, cur.Holder, cur.ExpiresAt.Format(time.RFC3339))
		}
		if cur.Holder == holder {
			want.TakenAt = cur.TakenAt
		}
		if _, err = r.put(ctx, key, mustJSON(want), false, etag); errors.Is(err, errPrecondition) {
			continue
		}
		return err
	}
	return fmt.Errorf("%w: the lease of workspace %s in %s keeps changing", ErrOtherWriter, ws, r.URL)
}

// Release gives up holder's lease of ws (if it still holds it).
func (r *Remote) Release(ctx context.Context, ws, holder string) error {
	b, etag, err := r.get(ctx, r.leaseKey(ws))
	if errors.Is(err, errNoObject) {
		return nil
	}
	if err != nil {
		return err
	}
	var cur Lease
	if jsonUnmarshal(b, &cur) != nil || cur.Holder != holder {
		return nil
	}
	cur.ExpiresAt = time.Unix(0, 0).UTC()
	_, err = r.put(ctx, r.leaseKey(ws), mustJSON(cur), false, etag)
	if errors.Is(err, errPrecondition) {
		return nil
	}
	return err
}
