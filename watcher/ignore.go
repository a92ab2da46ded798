package watcher

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The ignore files read in every directory of a workspace.
const (
	gitignoreName  = ".gitignore"
	ckptignoreName = ".ckptignore"
)

// IsIgnoreFile reports whether a base name is one of the per-directory ignore
// files (".gitignore" or ".ckptignore"); when one changes, the watcher calls
// Invalidate for its directory.
func IsIgnoreFile(name string) bool {
	return name == gitignoreName || name == ckptignoreName
}

// Ignorer decides which workspace paths are not captured. Safe for
// concurrent use. The package documentation describes the precedence.
type Ignorer struct {
	root  string
	extra *ruleList

	mu   sync.RWMutex
	dirs map[string]*ruleList // per directory (rel); loaded lazily
	info *ruleList            // .git/info/exclude; nil until loaded
	gen  uint64               // bumped by Invalidate: loads older than it are not cached
}

// NewIgnorer returns an Ignorer for the workspace at root. extra holds the
// configured patterns: they are read like the lines of a root-level
// .gitignore with the lowest precedence (like git's core.excludesFile).
func NewIgnorer(root string, extra []string) *Ignorer {
	ig := &Ignorer{root: root, dirs: make(map[string]*ruleList), extra: noRules}
	if len(extra) > 0 {
		ig.extra = &ruleList{pats: parseIgnoreLines(nil, []byte(strings.Join(extra, "\n")))}
	}
	return ig
}

// Ignored reports whether the workspace-relative path rel ('/'-separated,
// clean; "" is the root, never ignored) is not captured. isDir says whether
// rel is a directory (a symlink is not). As in git, a path under an ignored
// directory is ignored whatever the rules below that directory say.
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	if rel == "" || rel == "." {
		return false
	}
	for s := rel; ; {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			if alwaysIgnoredName(s) {
				return true
			}
			break
		}
		if alwaysIgnoredName(s[:i]) {
			return true
		}
		s = s[i+1:]
	}
	if ig == nil {
		return false
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && ig.excluded(rel[:i], true) {
			return true
		}
	}
	return ig.excluded(rel, isDir)
}

// Invalidate drops the cached rules of directory dir (workspace-relative, ""
// for the root) after its .gitignore or .ckptignore changed. Invalidating the
// root also re-reads .git/info/exclude.
func (ig *Ignorer) Invalidate(dir string) {
	if dir == "." {
		dir = ""
	}
	ig.mu.Lock()
	delete(ig.dirs, dir)
	if dir == "" {
		ig.info = nil
	}
	ig.gen++
	ig.mu.Unlock()
}

// excluded applies the rules to rel alone, assuming no ancestor of rel is
// excluded: the lists from rel's directory up to the root, then
// .git/info/exclude, then the extra patterns; the first list with a matching
// pattern decides.
func (ig *Ignorer) excluded(rel string, isDir bool) bool {
	name, dir := rel, ""
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		name, dir = rel[i+1:], rel[:i]
	}
	for {
		if m, neg := ig.dirRules(dir).match(rel, name, isDir); m {
			return !neg
		}
		if dir == "" {
			break
		}
		dir = ignParent(dir)
	}
	return ig.matchGlobal(ig.infoRules(), rel, name, isDir)
}

// matchGlobal applies the root-wide lists: info/exclude, then extra.
func (ig *Ignorer) matchGlobal(info *ruleList, rel, name string, isDir bool) bool {
	if m, neg := info.match(rel, name, isDir); m {
		return !neg
	}
	m, neg := ig.extra.match(rel, name, isDir)
	return m && !neg
}

func ignParent(dir string) string {
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		return dir[:i]
	}
	return ""
}

// dirRules returns the cached rules of dir, loading them if needed.
func (ig *Ignorer) dirRules(dir string) *ruleList {
	ig.mu.RLock()
	l, ok := ig.dirs[dir]
	gen := ig.gen
	ig.mu.RUnlock()
	if ok {
		return l
	}
	var seen [2]fs.FileInfo
	for i, name := range [2]string{gitignoreName, ckptignoreName} {
		if fi, err := os.Lstat(ig.abs(dir, name)); err == nil && fi.Mode().IsRegular() {
			seen[i] = fi
		}
	}
	l = ig.load(dir, seen)
	ig.store(dir, l, gen)
	return l
}

// dirRulesSeen is dirRules for a walk that has just listed dir and found
// its ignore files (nil: absent or not a regular file). Cached rules read
// from other files than these are reloaded, so a walk never applies stale
// rules even if an Invalidate was missed.
func (ig *Ignorer) dirRulesSeen(dir string, seen [2]fs.FileInfo) *ruleList {
	ig.mu.RLock()
	l, ok := ig.dirs[dir]
	gen := ig.gen
	ig.mu.RUnlock()
	if ok && sameIgnoreFile(l.files[0], seen[0]) && sameIgnoreFile(l.files[1], seen[1]) {
		return l
	}
	l = ig.load(dir, seen)
	ig.store(dir, l, gen)
	return l
}

// load reads the ignore files of dir that seen says exist. Like git, it
// never follows a symlinked ignore file, and an unreadable one is empty.
func (ig *Ignorer) load(dir string, seen [2]fs.FileInfo) *ruleList {
	if seen[0] == nil && seen[1] == nil {
		return noRules
	}
	l := &ruleList{}
	if dir != "" {
		l.base = dir + "/"
	}
	for i, name := range [2]string{gitignoreName, ckptignoreName} {
		if seen[i] == nil {
			continue
		}
		data, err := os.ReadFile(ig.abs(dir, name))
		if err != nil {
			continue // not recorded: the next walk tries again
		}
		l.files[i] = seen[i]
		l.pats = parseIgnoreLines(l.pats, data)
	}
	return l
}

// maxCachedDirs bounds the cache: directories that come and go (build and
// temp trees) would otherwise grow it forever. Past it, the cache restarts.
var maxCachedDirs = 1 << 18

func (ig *Ignorer) store(dir string, l *ruleList, gen uint64) {
	ig.mu.Lock()
	if ig.gen == gen {
		if len(ig.dirs) >= maxCachedDirs {
			clear(ig.dirs)
		}
		ig.dirs[strings.Clone(dir)] = l
	}
	ig.mu.Unlock()
}

func (ig *Ignorer) abs(dir, name string) string {
	return filepath.Join(ig.root, filepath.FromSlash(dir), name)
}

// infoRules returns the rules of .git/info/exclude, loading them if needed.
func (ig *Ignorer) infoRules() *ruleList {
	ig.mu.RLock()
	l, gen := ig.info, ig.gen
	ig.mu.RUnlock()
	if l != nil {
		return l
	}
	return ig.loadInfo(gen)
}

// refreshInfo re-reads .git/info/exclude if it changed since it was read;
// a walk calls it once at its start.
func (ig *Ignorer) refreshInfo() *ruleList {
	ig.mu.RLock()
	l, gen := ig.info, ig.gen
	ig.mu.RUnlock()
	if l != nil {
		fi, _ := os.Stat(infoExcludePath(ig.root))
		if fi != nil && !fi.Mode().IsRegular() {
			fi = nil
		}
		if sameIgnoreFile(l.files[0], fi) {
			return l
		}
	}
	return ig.loadInfo(gen)
}

func (ig *Ignorer) loadInfo(gen uint64) *ruleList {
	l := &ruleList{}
	name := infoExcludePath(ig.root)
	if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
		if data, err := os.ReadFile(name); err == nil {
			l.files[0] = fi
			l.pats = parseIgnoreLines(nil, data)
		}
	}
	ig.mu.Lock()
	if ig.gen == gen {
		ig.info = l
	}
	ig.mu.Unlock()
	return l
}

// infoExcludePath locates the repository's info/exclude: in .git, or for a
// worktree or submodule whose .git is a "gitdir:" file, in the common git
// directory it names. It returns "" when root has no .git.
func infoExcludePath(root string) string {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return filepath.Join(dotgit, "info", "exclude")
	case !fi.Mode().IsRegular():
		return ""
	}
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gitdir, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok {
		return ""
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(root, gitdir)
	}
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		gitdir = common
	}
	return filepath.Join(gitdir, "info", "exclude")
}

// sameIgnoreFile reports whether two stats describe the same unchanged file.
func sameIgnoreFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
