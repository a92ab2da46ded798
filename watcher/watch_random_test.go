package watcher

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRandomOperations drives random file and directory operations (the
// kind editors, build tools and git do) and checks after random stretches
// that the sink equals the disk. Without ignore-file changes the events
// alone must suffice: no re-walk but the initial one.
func TestRandomOperations(t *testing.T) {
	for _, withIgnore := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignore-changes=%v", withIgnore), func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, seed>>1))
			root, outside := t.TempDir(), t.TempDir()
			m := &mutator{t: t, rng: rng, root: root, outside: outside, ignore: withIgnore}
			for range 30 {
				m.step()
			}
			h := start(t, root, Options{})
			h.check("initial")
			for i := 0; i < 300; {
				n := 1 + rng.IntN(15)
				for range n {
					m.step()
				}
				i += n
				h.check(fmt.Sprintf("after %d operations (last: %s)", i, m.last))
			}
			if !withIgnore {
				noRewalks(t, h)
			}
		})
	}
}

// mutator performs random operations on a tree.
type mutator struct {
	t             *testing.T
	rng           *rand.Rand
	root, outside string
	ignore        bool
	last          string
	n             int
}

var names = []string{"a", "b", "c", "src", "pkg", "x y", "build"}

func (m *mutator) randRel(depth int) string {
	parts := make([]string, 1+m.rng.IntN(depth))
	for i := range parts {
		parts[i] = names[m.rng.IntN(len(names))]
	}
	return strings.Join(parts, "/")
}

// pick returns a random existing entry under base (files or directories).
func (m *mutator) pick(base string, dirs bool) (string, bool) {
	var all []string
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == base {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() == dirs {
			all = append(all, p)
		}
		return nil
	})
	if len(all) == 0 {
		return "", false
	}
	return all[m.rng.IntN(len(all))], true
}

func (m *mutator) step() {
	m.n++
	data := fmt.Sprintf("content %d", m.n)
	switch op := m.rng.IntN(13); {
	case op < 3: // write a file, creating directories (mkdir -p)
		rel := m.randRel(4) + fmt.Sprintf("/f%d", m.rng.IntN(5))
		m.last = "write " + rel
		if err := os.MkdirAll(filepath.Join(m.root, filepath.Dir(rel)), 0o755); err == nil {
			os.WriteFile(filepath.Join(m.root, rel), []byte(data), 0o644)
		}
	case op == 3: // modify in place
		if p, ok := m.pick(m.root, false); ok {
			m.last = "modify " + p
			os.WriteFile(p, []byte(data), 0o644)
		}
	case op == 4: // delete a file
		if p, ok := m.pick(m.root, false); ok {
			m.last = "delete " + p
			os.Remove(p)
		}
	case op == 5: // rm -rf a directory
		if p, ok := m.pick(m.root, true); ok {
			m.last = "rm -rf " + p
			os.RemoveAll(p)
		}
	case op == 6: // rename a file
		if p, ok := m.pick(m.root, false); ok {
			dst := filepath.Join(m.root, m.randRel(2)+fmt.Sprintf("-r%d", m.n))
			m.last = "mv " + p + " " + dst
			os.Rename(p, dst)
		}
	case op == 7: // rename a directory within the tree
		if p, ok := m.pick(m.root, true); ok {
			dst := filepath.Join(m.root, m.randRel(2)+fmt.Sprintf("-d%d", m.n))
			m.last = "mv " + p + " " + dst
			os.Rename(p, dst) // fails harmlessly into its own subtree
		}
	case op == 8: // move a directory out, or one in
		if p, ok := m.pick(m.root, true); ok && m.rng.IntN(2) == 0 {
			m.last = "move out " + p
			os.Rename(p, filepath.Join(m.outside, fmt.Sprintf("out%d", m.n)))
		} else if p, ok := m.pick(m.outside, true); ok {
			dst := filepath.Join(m.root, fmt.Sprintf("in%d", m.n))
			m.last = "move in " + p
			os.WriteFile(filepath.Join(p, "moved"), []byte(data), 0o644)
			os.Rename(p, dst)
		}
	case op == 9: // symlink or chmod
		if p, ok := m.pick(m.root, false); ok && m.rng.IntN(2) == 0 {
			m.last = "chmod " + p
			os.Chmod(p, 0o600|fs.FileMode(m.rng.IntN(2))*0o100)
		} else {
			rel := m.randRel(2) + fmt.Sprintf("-l%d", m.n)
			m.last = "symlink " + rel
			os.Symlink("target", filepath.Join(m.root, rel))
		}
	case op == 10: // atomic save: temp file, then rename over
		if p, ok := m.pick(m.root, false); ok {
			m.last = "atomic save " + p
			tmp := p + ".swp"
			if os.WriteFile(tmp, []byte(data), 0o644) == nil {
				os.Rename(tmp, p)
			}
		}
	case op == 11: // a burst of nested directories
		rel := fmt.Sprintf("burst%d/%s/%s", m.n, m.randRel(1), m.randRel(1))
		m.last = "burst " + rel
		os.MkdirAll(filepath.Join(m.root, rel), 0o755)
		os.WriteFile(filepath.Join(m.root, rel, "f"), []byte(data), 0o644)
	case op == 12 && m.ignore: // change ignore rules
		dir := ""
		if p, ok := m.pick(m.root, true); ok && m.rng.IntN(2) == 0 {
			dir = strings.TrimPrefix(p, m.root+"/")
		}
		file := filepath.Join(m.root, dir, []string{".gitignore", ".ckptignore"}[m.rng.IntN(2)])
		pat := []string{"build/", "f1", "*.swp", "!f1", "b", "a/"}[m.rng.IntN(6)]
		m.last = "ignore " + pat + " in " + file
		if m.rng.IntN(3) == 0 {
			os.Remove(file)
		} else {
			os.WriteFile(file, []byte(pat+"\n"), 0o644)
		}
	}
}
