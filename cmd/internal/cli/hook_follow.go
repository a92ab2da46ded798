package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
)

// When the person interrupts a turn (Esc), Claude Code sends no hook event:
// no PostToolUse, no Stop. It records the interrupt in the session's
// transcript. So while a run is open, a follower process watches the
// transcript and ends the run within followPoll of the interrupt: what the
// person does afterwards is drift, not the run's. If the follower is not
// there (killed, or the machine slept), the session's next hook finds the
// interrupt in the transcript (missedInterrupt) and ends the run first.
const (
	followPoll = 100 * time.Millisecond
	// followMaxLife bounds a follower whose session never ends its run.
	followMaxLife = 24 * time.Hour
)

// interruptInput is the event ckpt plans for an interrupt the transcript
// recorded at time at: the run ends as of then.
func interruptInput(session string, at time.Time) claudecode.HookInput {
	return claudecode.HookInput{Event: claudecode.EventInterrupt, SessionID: session, InterruptedAt: at}
}

// turnEnd reports whether a run end on this event is where the person is
// shown how to undo the turn: Claude Code shows a Stop hook's
// systemMessage; it does not show SubagentStop's or StopFailure's.
func turnEnd(event string) bool { return event == claudecode.EventStop }

// transcriptStart is where a new run starts reading its transcript: its
// current end (what is there was written before the run began).
func transcriptStart(path string) (string, int64) {
	if path == "" {
		return "", 0
	}
	info, err := os.Stat(path)
	if err != nil {
		return path, 0
	}
	return path, info.Size()
}

// missedInterrupt reads the open run's transcript from where the hooks
// left it, advancing st's offset, and reports whether it records an
// interrupt, and its time. An unreadable transcript records none.
func missedInterrupt(st *claudecode.HookState) (time.Time, bool) {
	if st.Run == "" || st.Transcript == "" {
		return time.Time{}, false
	}
	at, found, next, err := claudecode.FindInterrupt(st.Transcript, st.TranscriptOffset, time.Time{})
	if err != nil {
		return time.Time{}, false
	}
	st.TranscriptOffset = next
	return at, found
}

// offsetSaveStep is how far the hooks' transcript offset must move before
// a hook saves it on its own: a state write (with its fsync) on every tool
// call would cost more than re-reading up to this much of the transcript.
const offsetSaveStep = 1 << 20

// worthSaving reports whether the state changed enough to be written:
// anything but the transcript offset, or the offset by offsetSaveStep.
func worthSaving(st, saved claudecode.HookState) bool {
	offset := st.TranscriptOffset - saved.TranscriptOffset
	st.TranscriptOffset = saved.TranscriptOffset
	return st != saved || offset >= offsetSaveStep || offset < 0
}

// startFollower starts `ckpt hook claude-code --follow-session S` in its own
// session, detached: it outlives this hook. A failure to start it only
// costs the early end of an interrupted run.
func startFollower(session, workspace string) {
	self, err := ckptExecutable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, "-C", workspace, "hook", "claude-code", "--follow-session", session)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

// followTranscript is the follower: one per session (an flock on
// <session>.follow), polling the open run's transcript until the run ends
// or the transcript records an interrupt, which ends the run.
func followTranscript(cmd *cobra.Command, g *globalOptions, session string) error {
	base, err := config.Load(config.Options{Flags: cmd.Flags()})
	if err != nil {
		return err
	}
	dir := filepath.Join(base.StateDir, "hooks", "claude-code")
	name := claudecode.HookStateName(session)
	lock, err := os.OpenFile(filepath.Join(dir, name+".follow"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return nil // another follower has this session
	}
	hs := &hookStateFile{path: filepath.Join(dir, name+".json"), session: session}
	var transcript string
	var offset int64
	for deadline := time.Now().Add(followMaxLife); time.Now().Before(deadline); time.Sleep(followPoll) {
		st := hs.load()
		if st.Run == "" || st.Transcript == "" {
			return nil
		}
		if st.Transcript != transcript || st.TranscriptOffset > offset {
			transcript, offset = st.Transcript, st.TranscriptOffset
		}
		at, found, next, err := claudecode.FindInterrupt(transcript, offset, time.Time{})
		if err != nil {
			return err
		}
		offset = next
		if found {
			return endInterrupted(cmd, g, base.StateDir, session, st.Run, at)
		}
	}
	return nil
}

// endInterrupted ends the session's run as of at, under the session's
// lock, if it is still the open one.
func endInterrupted(cmd *cobra.Command, g *globalOptions, stateDir, session, runID string, at time.Time) error {
	hs, err := openHookState(cmd.Context(), stateDir, "claude-code", session)
	if err != nil {
		return err
	}
	defer hs.close()
	st := hs.load()
	if st.Run != runID {
		return nil // ended meanwhile, by a hook that saw the interrupt too
	}
	g.dir = st.Workspace
	err = run(g, func(ctx context.Context, b backend) error {
		var err error
		st, _, err = applyPlan(ctx, b, hooks.Event{HookInput: interruptInput(session, at)}, st, g.root, true)
		return err
	})(cmd, nil)
	if serr := hs.save(st); err == nil {
		err = serr
	}
	return err
}
