package panel

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
)

// The page loads its assets under /assets/<version>/, where version is a
// hash of every asset: such a URL names one content forever, so the
// browser keeps it (immutable) and a panel opened again loads only the
// page and its data. A new build has another version, so its page never
// runs with an older build's scripts. The modules import each other by
// relative paths, so they stay under the same version.

// assetsVersion is the hash of every file under assets/ in fsys, its
// paths included: 16 hex digits, "" if they cannot be read.
func assetsVersion(fsys fs.FS) string {
	h := sha256.New()
	err := fs.WalkDir(fsys, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// splitVersion takes the version off an asset path ("v<version>/app.js"
// gives "app.js" and whether the version is this build's).
func splitVersion(p, version string) (rest string, current bool) {
	first, rest, ok := strings.Cut(p, "/")
	if !ok || !strings.HasPrefix(first, "v") {
		return p, false
	}
	return rest, version != "" && first == "v"+version
}
