package remote

import (
	"encoding/json"

	"github.com/ckptdev/ckpt/store"
)

// CursorIn is the cursor the store remembers for the remote at url and
// the workspace name, read in r (the zero cursor before the first push).
// It needs no connection: retention reads it to keep what is not
// replicated yet.
func CursorIn(r *store.Reader, url, name string) (Cursor, error) {
	var c Cursor
	b, err := r.Mark(MarkID(&Remote{URL: url}, name), "cursor")
	if err != nil || b == nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}
