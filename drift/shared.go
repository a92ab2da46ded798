package drift

import (
	"cmp"
	"slices"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/store"
)

// An opening is the stretch of the journal during which one run, or one
// tool window of it (call set), was open: the entries with from < seq <=
// to (to 0: still open). Every change in it is the opening's, whoever else
// was open too.
type opening struct {
	session, run, call string
	from, to           uint64
}

// windowOpening is a tool window's stretch: from its pre_write to its end.
func windowOpening(tw store.ToolWindow) opening {
	return opening{session: tw.Session, run: tw.Run, call: tw.Call, from: tw.StartSeq, to: tw.EndSeq}
}

// runOpening is a run's stretch: from the moment it opened to its end.
func runOpening(rec store.Run) opening {
	from := rec.OpenSeq
	if from == 0 {
		from = rec.StartSeq
	}
	return opening{session: rec.Session, run: rec.Run, from: from, to: rec.EndSeq}
}

// own reports whether p is the opening itself or part of it: a run's own
// tool windows are the run's; a window's run (without a call) is not
// another writer.
func (o opening) own(p store.Party) bool {
	if p.Session != o.session || p.Run != o.run {
		return false
	}
	return o.call == "" || p.Call == "" || p.Call == o.call
}

// stamped reports whether c is the opening's change for a revert: the
// opening is among its parties (the stamp or Shared; for a run, any of
// its tool windows too), since the disk does not say which of the parties
// wrote it. A restore's entries are nobody's.
func (o opening) stamped(c store.Change) bool {
	if c.Attr.Restore {
		return false
	}
	for _, p := range c.Attr.Parties() {
		if p.Session == o.session && p.Run == o.run && (o.call == "" || p.Call == o.call) {
			return true
		}
	}
	return false
}

// sharing gathers, path by path, the other runs and tool windows open
// when an entry inside an opening was captured.
type sharing struct {
	o     opening
	paths map[string][]api.Party
}

func newSharing(o opening) *sharing { return &sharing{o: o, paths: map[string][]api.Party{}} }

// note is a Diff keep function: it counts every entry, and notes who else
// was open for those inside the opening.
func (s *sharing) note(c store.Change) bool {
	if c.Seq <= s.o.from || (s.o.to != 0 && c.Seq > s.o.to) {
		return true
	}
	for _, p := range c.Attr.Parties() {
		q := api.Party{SessionID: p.Session, RunID: p.Run, ToolCallID: p.Call}
		if !s.o.own(p) && !slices.Contains(s.paths[c.Path], q) {
			s.paths[c.Path] = append(s.paths[c.Path], q)
		}
	}
	return true
}

// with is who else was open when path changed inside the opening,
// sorted; nil when nobody was.
func (s *sharing) with(path string) []api.Party {
	with := s.paths[path]
	if len(with) == 0 {
		return nil
	}
	with = slices.Clone(with)
	slices.SortFunc(with, func(a, b api.Party) int {
		return cmp.Or(cmp.Compare(a.SessionID, b.SessionID), cmp.Compare(a.RunID, b.RunID), cmp.Compare(a.ToolCallID, b.ToolCallID))
	})
	return with
}

// mark sets SharedWith on each change.
func (s *sharing) mark(changes []api.Change) {
	for i := range changes {
		changes[i].SharedWith = s.with(changes[i].Path)
	}
}

// SharedWith is who else a journal entry's stamp names besides the run
// or tool call it names first (Attr.Shared), as the CLI shows them: the
// shared_with of that one change.
func SharedWith(a store.Attr) []api.Party {
	var out []api.Party
	for _, p := range a.Shared {
		out = append(out, api.Party{SessionID: p.Session, RunID: p.Run, ToolCallID: p.Call})
	}
	return out
}

// withRun is a with run (session, run) as its newest open run, keeping
// the calls its tool windows opened before it was started.
func withRun(a store.Active, session, run string) store.Active {
	r := store.ActiveRun{Session: session, Run: run}
	if i := slices.IndexFunc(a.Runs, func(r store.ActiveRun) bool { return r.Session == session && r.Run == run }); i >= 0 {
		r.Calls = a.Runs[i].Calls
	}
	a = withoutRun(a, session, run)
	a.Runs = append(a.Runs, r)
	return a
}

// withoutRun is a without run (session, run) and its open calls.
func withoutRun(a store.Active, session, run string) store.Active {
	a.Runs = slices.DeleteFunc(a.Runs, func(r store.ActiveRun) bool { return r.Session == session && r.Run == run })
	return a
}

// withCall is a with the call open, its run (opened if need be) the
// newest: changes captured from now on are attributed to the call first.
func withCall(a store.Active, req api.ToolRequest) store.Active {
	i := slices.IndexFunc(a.Runs, func(r store.ActiveRun) bool { return r.Session == req.Session && r.Run == req.Run })
	r := store.ActiveRun{Session: req.Session, Run: req.Run, WindowsOnly: true}
	if i >= 0 {
		r = a.Runs[i]
		a.Runs = slices.Delete(a.Runs, i, i+1)
	}
	r.Calls = append(slices.DeleteFunc(r.Calls, func(c string) bool { return c == req.Call }), req.Call)
	a.Runs = append(a.Runs, r)
	return a
}

// withoutCall is a with the call closed, and its run too if no run start
// opened it and this was its last open call: what is captured after it is
// no run's.
func withoutCall(a store.Active, req api.ToolRequest) store.Active {
	for i, r := range a.Runs {
		if r.Session == req.Session && r.Run == req.Run {
			r.Calls = slices.DeleteFunc(r.Calls, func(c string) bool { return c == req.Call })
			a.Runs[i] = r
		}
	}
	a.Runs = slices.DeleteFunc(a.Runs, func(r store.ActiveRun) bool { return r.WindowsOnly && len(r.Calls) == 0 })
	return a
}
