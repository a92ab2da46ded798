package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestRunStartDriftIsTheBaseline: while a process keeps writing files,
// runs start and end one after another. The drift each run start reports
// is exactly what its baseline holds beyond the checkpoint current before
// it (ckpt diff between the two), however the writes fall: no change
// lands between reading the drift and cutting the checkpoint that holds
// it. With a daemon the writes are captured as they happen, concurrently
// with the run start; CKPT_TEST_SLOW_DRIFT makes the run start take 50 ms
// between reading the drift and cutting the baseline, for the writes to
// land in between if they could.
func TestRunStartDriftIsTheBaseline(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m, "CKPT_TEST_SLOW_DRIFT=1")
		for i := range 20 {
			ws.write(fmt.Sprintf("w/f%02d.txt", i), "initial\n")
		}
		ws.start()

		stop := make(chan struct{})
		var wg sync.WaitGroup
		var writeErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				p := filepath.Join(ws.root, "w", fmt.Sprintf("f%02d.txt", n%20))
				var err error
				if n%7 == 3 {
					err = os.Remove(p)
				} else {
					err = os.WriteFile(p, []byte(fmt.Sprintf("write %d\n", n)), 0o644)
				}
				if err != nil && !os.IsNotExist(err) {
					writeErr = err
					return
				}
				time.Sleep(200 * time.Microsecond)
			}
		}()
		defer func() { close(stop); wg.Wait() }()

		cur := ws.status().CurrentCheckpointID
		drifted := 0
		for i := range 15 {
			run := fmt.Sprintf("r%d", i)
			var s runStartJSON
			ws.ckptJSON(&s, "run", "start", "--session", "s", "--run", run)
			got := kinds(s.Drift)
			if s.PrevCheckpointID == cur {
				if len(got) > 0 || s.WorkspaceDrifted {
					t.Errorf("run start %s kept the baseline %s, yet reports drift %v", run, cur, got)
				}
			} else {
				drifted++
				var d diffJSON
				ws.ckptJSON(&d, "diff", cur, s.PrevCheckpointID)
				if wantDrift := kinds(d.Files); !slices.Equal(got, wantDrift) {
					t.Errorf("run start %s: drift %s, but its baseline %s holds %s beyond %s", run, fmtList(got), s.PrevCheckpointID, fmtList(wantDrift), cur)
				}
			}
			var e runDiffJSON
			ws.ckptJSON(&e, "run", "end", "--session", "s", "--run", run)
			cur = e.CheckpointID
		}
		close(stop)
		wg.Wait()
		stop = make(chan struct{})
		if writeErr != nil {
			t.Fatal(writeErr)
		}
		if drifted < 5 {
			t.Errorf("only %d of 15 run starts found drift: the writes did not keep arriving", drifted)
		}
	})
}
