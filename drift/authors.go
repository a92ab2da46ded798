package drift

import (
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// authors is drift's run/person split: path by path, whether the journal
// entries a diff read were made by runs (their tool calls, or restores)
// or by the person (outside any run). Its note is a Diff keep function.
type authors map[string]uint8

const (
	byRun uint8 = 1 << iota
	byPerson
)

func (a authors) note(c store.Change) bool {
	if c.Attr.InRun() {
		a[c.Path] |= byRun
	} else {
		a[c.Path] |= byPerson
	}
	return true
}

// who is how CLI output names who changed p: "run", "person" or "both".
func (a authors) who(p string) string {
	switch a[p] {
	case byRun | byPerson:
		return "both"
	case byRun:
		return "run"
	}
	return "person"
}

// restorePolicy is what a restore that is not exact takes back: with no
// paths named, only what runs changed (a path only the person changed is
// kept); a path both changed is a conflict.
type restorePolicy struct {
	authors
	keepPersons bool
}

// policyFor is the policy of a restore: nil (take back every path) for an
// exact one.
func policyFor(exact bool, paths []string) snapshot.RestorePolicy {
	if exact {
		return nil
	}
	return restorePolicy{authors: authors{}, keepPersons: paths == nil}
}

func (p restorePolicy) Note(c store.Change) bool { return p.note(c) }

func (p restorePolicy) Decide(fc snapshot.FileChange) (string, bool) {
	by := p.authors[fc.Path]
	if p.keepPersons && by&byRun == 0 {
		return "changed only outside runs", false
	}
	return "", by == byRun|byPerson
}
