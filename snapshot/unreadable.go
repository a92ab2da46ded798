package snapshot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/ckptdev/ckpt/store"
)

// Unreadable is a path ckpt could not read: a directory it could not list
// or a file it could not stat or open. What lies there is unknown, so its
// entries keep the state they had (nothing under it is recorded deleted)
// and restores leave it alone.
type Unreadable struct {
	Path string
	Err  string // why, as the system said it
}

// walkError is the error a walk reports, instead of a file's info, for a
// path it could not read: an info whose Mode has fs.ModeIrregular and whose
// Sys is the error (see WalkFunc).
func walkError(info fs.FileInfo) error {
	if info == nil || info.Mode()&fs.ModeIrregular == 0 {
		return nil
	}
	err, _ := info.Sys().(error)
	return err
}

// unreadableSet maps the paths that could not be read to why.
type unreadableSet map[string]string

// covering returns the path of the set that p is or lies under, and why it
// could not be read; "" when none.
func (u unreadableSet) covering(p string) (string, string) {
	if len(u) == 0 {
		return "", ""
	}
	if why, ok := u[p]; ok {
		return p, why
	}
	for i := strings.IndexByte(p, '/'); i >= 0; {
		if why, ok := u[p[:i]]; ok {
			return p[:i], why
		}
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "", ""
}

// dropUnder forgets p and every path under it.
func (u unreadableSet) dropUnder(p string) {
	delete(u, p)
	for q := range u {
		if strings.HasPrefix(q, p+"/") {
			delete(u, q)
		}
	}
}

func (u unreadableSet) sorted() []Unreadable {
	out := make([]Unreadable, 0, len(u))
	for p, why := range u {
		out = append(out, Unreadable{Path: p, Err: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// errText is err without the path os puts in front of it: the path is
// named next to it anyway (relative to the workspace, not absolute).
func errText(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Err.Error()
	}
	return err.Error()
}

// Unreadable lists the paths the last scan or capture could not read,
// sorted. Their entries keep the state recorded before.
func (ws *Workspace) Unreadable() []Unreadable {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.unreadable.sorted()
}

// readableDir reports whether the directory rel under root can be listed; a
// directory that vanished counts as readable (it is simply gone).
func readableDir(root, rel string) error {
	f, err := openRel(root, rel)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
	}
	if err == nil || isNotExist(err) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// unreadableWhy says why a restore to target must leave p alone because
// ckpt cannot know what it holds: it (or a directory above it) cannot be
// read now, or could not be read when target was made. "" when neither.
// The caller holds ws.mu.
func (ws *Workspace) unreadableWhy(p string, target store.Checkpoint) string {
	if q, why := ws.unreadable.covering(p); q != "" {
		return fmt.Sprintf("%s could not be read (%s), so what it holds is unknown", q, why)
	}
	for _, q := range target.Unreadable {
		if p == q || strings.HasPrefix(p, q+"/") {
			return fmt.Sprintf("%s could not be read when %s was made, so its state then is unknown", q, target.ID)
		}
	}
	return ""
}

// paths is the set's paths, sorted; nil when empty.
func (u unreadableSet) paths() []string {
	if len(u) == 0 {
		return nil
	}
	out := make([]string, 0, len(u))
	for p := range u {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
