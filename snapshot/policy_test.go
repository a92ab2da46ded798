package snapshot

import "github.com/ckptdev/ckpt/store"

// runsOnly is the policy of a default restore as drift makes it: a path
// that only the person changed (no run, tool call or restore) is kept; a
// path both changed is a conflict.
type runsOnly struct{ byRun, byPerson map[string]bool }

func newRunsOnly() *runsOnly {
	return &runsOnly{byRun: map[string]bool{}, byPerson: map[string]bool{}}
}

func (p *runsOnly) Note(c store.Change) bool {
	if c.Attr.InRun() {
		p.byRun[c.Path] = true
	} else {
		p.byPerson[c.Path] = true
	}
	return true
}

func (p *runsOnly) Decide(fc FileChange) (string, bool) {
	if !p.byRun[fc.Path] {
		return "changed only outside runs", false
	}
	return "", p.byPerson[fc.Path]
}
