package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// crashUpdate is the child's Tx: what a run start with drift writes (a
// checkpoint, a run record, the current checkpoint, the open set) and a
// tool window record, in one Update.
func crashUpdate(ws *Workspace) error {
	return ws.Update(func(tx *Tx) error {
		cp, err := tx.Cut(ReasonPreRunDriftRebase, "", store.Attr{Session: "s", Run: "r"})
		if err != nil {
			return err
		}
		tx.SetActive(store.Active{Runs: []store.ActiveRun{{Session: "s", Run: "r", Calls: []string{"c"}}}})
		if err := tx.PutRun(store.Run{Session: "s", Run: "r", BaselineID: cp.ID, StartSeq: cp.Seq}); err != nil {
			return err
		}
		if err := tx.PutToolWindow(store.ToolWindow{Session: "s", Run: "r", Call: "c", CheckpointID: cp.ID, StartSeq: cp.Seq}); err != nil {
			return err
		}
		return tx.SetCurrent(cp)
	})
}

// TestCrashUpdateAtStep stops an Update in a child process just before its
// commit and just after it (CKPT_TEST_CRASH_AT commit, committed), and, as
// a control, lets one finish: the next Open finds all of its writes or
// none, never some.
func TestCrashUpdateAtStep(t *testing.T) {
	for _, tc := range []struct {
		step     string
		code     int
		complete bool
	}{{crashCommit, 3, false}, {crashCommitted, 3, true}, {"", 0, true}} {
		name := "stopped at " + tc.step
		if tc.step == "" {
			name = "not stopped"
		}
		t.Run(name, func(t *testing.T) {
			root, state := t.TempDir(), t.TempDir()
			mustNil(t, os.WriteFile(filepath.Join(root, "a"), []byte("a"), 0o644))
			ws, err := Open(state, root, Options{LockTimeout: time.Second, Workers: 2})
			mustNil(t, err)
			initial, _, err := ws.Import(context.Background(), modelWalk(root))
			mustNil(t, err)
			mustNil(t, ws.Close())

			env := []string{envHelper + "=update", envRoot + "=" + root, envState + "=" + state}
			if tc.step != "" {
				env = append(env, "CKPT_TEST_CRASH_AT="+tc.step)
			}
			if code, out := runCrashHelper(t, env...); code != tc.code {
				t.Fatalf("child exited %d (%q), want %d", code, out, tc.code)
			}

			ws, err = Open(state, root, Options{LockTimeout: 5 * time.Second, Workers: 2})
			mustNil(t, err)
			defer ws.Close()
			cur, err := ws.Current()
			mustNil(t, err)
			cps, err := ws.Checkpoints(0)
			mustNil(t, err)
			run, runErr := ws.Run("s", "r")
			_, twErr := ws.ToolWindow("s", "r", "c")
			found := map[string]bool{
				"checkpoint":  len(cps) == 2,
				"current":     cur.ID != initial.ID,
				"run":         runErr == nil && run.BaselineID == cur.ID,
				"tool window": twErr == nil,
				"open set":    len(ws.Active().Runs) == 1,
			}
			for what, ok := range found {
				if ok != tc.complete {
					t.Errorf("after the child stopped at %q: %s there %v, want %v (all: %v)", tc.step, what, ok, tc.complete, found)
				}
			}
			if !tc.complete && (!errors.Is(runErr, store.ErrNotFound) || !errors.Is(twErr, store.ErrNotFound)) {
				t.Errorf("not committed, yet: run %v, window %v", runErr, twErr)
			}
		})
	}
}
