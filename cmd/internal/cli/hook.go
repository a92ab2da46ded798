package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/internal/statedir"
)

// maxHookInput bounds a hook payload (PostToolUse carries the tool's
// output, Write the whole file).
const maxHookInput = 64 << 20

// maxRunIDRetries bounds how often a run start takes the next turn number
// because the id was used already (the session's hook state was lost).
const maxRunIDRetries = 5

func newHookCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "hook", Short: "Agent runtime hook handlers"}
	var follow string
	cc := &cobra.Command{
		Use:   "claude-code",
		Short: "Claude Code hook handler: reads the hook's JSON on stdin",
		Long: `Claude Code hook handler: reads the hook's JSON on stdin.

UserPromptSubmit starts a run (turn-N of the Claude Code session) and tells
the agent which files changed outside its runs since its last turn;
PreToolUse and PostToolUse open and close a tool window around each call of
a tool that may write; Stop ends the run (once its background subagents
have stopped: SubagentStop) and shows the person how to undo the turn
(ckpt revert --session S --run R); StopFailure, SessionEnd and an interrupt
the session's transcript records end it too.

It never exits 2, which Claude Code reads as "block": any failure, bad input
included, is one line on stderr and exit 1, which Claude Code reports and
goes on. See integration/HOOKS.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			g.hook = true
			g.cmd = cmd
			if follow != "" {
				return hookFailure(followTranscript(cmd, g, follow))
			}
			return hookFailure(runHookClaudeCode(cmd, g, args, os.Stdin, os.Stdout))
		},
	}
	cc.Flags().StringVar(&follow, "follow-session", "", "watch the session's transcript for an interrupt while its run is open (started by the hook itself)")
	cc.Flags().MarkHidden("follow-session")
	cc.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return hookFailure(err) })
	cmd.AddCommand(cc)
	if subcommandName(g.args) != "claude-code" { // its hook runs: the other runtimes' are not built
		addRuntimeHookCommands(cmd, g)
	}
	return cmd
}

// hookFailure reports err on stderr and turns it into exit 1, never 2:
// exit 2 would block the agent's tool call, prompt or stop.
func hookFailure(err error) error {
	if err == nil {
		return nil
	}
	fmt.Fprintln(os.Stderr, "ckpt: hook claude-code:", err)
	return exitcode.Coded{Code: 1}
}

func runHookClaudeCode(cmd *cobra.Command, g *globalOptions, args []string, stdin io.Reader, stdout io.Writer) error {
	data, err := readHookPayload(args, stdin, "reads a Claude Code hook's JSON on stdin; register it in Claude Code's settings.json (see integration/claude-code-settings.json)")
	if err != nil {
		return err
	}
	in, err := claudecode.ParseHook(data)
	if err != nil {
		return err
	}
	if !claudecode.Relevant(in) {
		return nil
	}
	stateDir, hs, err := openSessionState(cmd, g, "claude-code", in.SessionID)
	if err != nil {
		return err
	}
	defer hs.close()
	st := hs.load()
	saved := st
	if g.dir == "" {
		if g.dir, err = hookWorkspace(in, st, stateDir, os.Getenv("CLAUDE_PROJECT_DIR")); err != nil {
			return err
		}
	}
	interruptedAt, interrupted := missedInterrupt(&st)
	var o hooks.Outcome
	err = run(g, func(ctx context.Context, b backend) error {
		var err error
		if interrupted {
			if st, _, err = applyPlan(ctx, b, hooks.Event{HookInput: interruptInput(in.SessionID, interruptedAt)}, st, g.root, true); err != nil {
				return err
			}
		}
		st, o, err = applyPlan(ctx, b, hooks.Event{HookInput: in}, st, g.root, true)
		return err
	})(cmd, nil)
	if worthSaving(st, saved) {
		if serr := hs.save(st); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	if st.Run != "" && st.Run != saved.Run && st.Transcript != "" {
		startFollower(in.SessionID, st.Workspace)
	}
	_, err = stdout.Write(claudeCodeOutput(o))
	return err
}

// readHookPayload is the hook's payload on stdin, at most maxHookInput
// bytes; onTerminal is the error when stdin is a terminal.
func readHookPayload(args []string, stdin io.Reader, onTerminal string) ([]byte, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("takes no arguments, got %q", args)
	}
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		return nil, errors.New(onTerminal)
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > maxHookInput {
		return nil, fault.Invalidf("bad hook input: larger than %d bytes", maxHookInput)
	}
	if stdin == io.Reader(os.Stdin) {
		consumedStdin = data // ckptd reads it again if it runs the hook
	}
	return data, nil
}

// openSessionState loads the configuration and opens, locked, the
// session's hook state in its state directory, which it returns too. The
// command's backend is then opened with that configuration (g.base).
func openSessionState(cmd *cobra.Command, g *globalOptions, runtime, session string) (string, *hookStateFile, error) {
	base, err := config.Load(config.Options{Flags: cmd.Flags()})
	if err != nil {
		return "", nil, err
	}
	if err := statedir.PrepareStateDir(base.StateDir); err != nil {
		return "", nil, err
	}
	g.base = base
	hs, err := openHookState(cmd.Context(), base.StateDir, runtime, session)
	return base.StateDir, hs, err
}

// applyPlan carries out the event's plan (claudecode.Plan, the core every
// runtime shares) on the engine, action by action, and returns the
// session's new state (as far as the actions succeeded) and what the
// engine answered. With transcripts a new run records where its
// transcript ends (Claude Code's interrupts are read from it).
func applyPlan(ctx context.Context, b backend, ev hooks.Event, st claudecode.HookState, root string, transcripts bool) (claudecode.HookState, hooks.Outcome, error) {
	o := hooks.Outcome{Event: ev}
	acts := claudecode.Plan(ev.HookInput, st)
	retries := 0
	for i := 0; i < len(acts); i++ {
		a := acts[i]
		var err error
		switch a.Kind {
		case claudecode.ActionRunStart:
			var rs api.RunStart
			rs, err = b.RunStart(ctx, a.Session, a.Run)
			if errors.Is(err, fault.Invalid) && retries < maxRunIDRetries {
				// The id was used before: the state was lost. Take the next.
				retries++
				st.Turns++
				acts, i = claudecode.Plan(ev.HookInput, st), -1
				continue
			}
			o.Started = &rs
		case claudecode.ActionRunEnd:
			var re api.RunEnd
			re, err = b.RunEndAsOf(ctx, a.Session, a.Run, a.AsOf)
			o.Ended = &re
		case claudecode.ActionRunWait:
			o.Waiting = a.Run
		case claudecode.ActionToolStart:
			_, err = b.ToolStart(ctx, a.ToolRequest())
		case claudecode.ActionToolEnd:
			var te api.ToolEnd
			te, err = b.ToolEnd(ctx, a.ToolRequest())
			o.ToolEnd = &te
		}
		if errors.As(err, new(notRecorded)) {
			return st, hooks.Outcome{Event: ev}, err // the daemon is still opening the workspace
		}
		if err != nil {
			return st, hooks.Outcome{Event: ev}, fmt.Errorf("%s %s/%s: %w", strings.ReplaceAll(string(a.Kind), "_", " "), a.Session, a.Run, err)
		}
		st = claudecode.Apply(st, a)
		if a.Kind == claudecode.ActionRunStart {
			st.Workspace = root
			if transcripts {
				st.Transcript, st.TranscriptOffset = transcriptStart(ev.TranscriptPath)
			}
		}
	}
	return st, o, nil
}

// claudeCodeOutput is what to print for Claude Code: the drift since the
// agent's last turn as UserPromptSubmit's context, unstored changes as
// PostToolUse's, and at Stop the command that undoes the turn (or, when
// the run waits for background subagents, that it stays open).
func claudeCodeOutput(o hooks.Outcome) []byte {
	in := o.Event.HookInput
	switch {
	case in.Event == claudecode.EventUserPromptSubmit && o.Started != nil:
		return claudecode.ContextOutput(in.Event, claudecode.DriftContext(*o.Started))
	case in.Event == claudecode.EventPostToolUse && o.ToolEnd != nil:
		return claudecode.ContextOutput(in.Event, claudecode.UncoveredContext(*o.ToolEnd))
	case turnEnd(in.Event) && o.Waiting != "":
		return claudecode.WaitMessage(in.SessionID, o.Waiting)
	case turnEnd(in.Event) && o.Ended != nil:
		return claudecode.UndoMessage(o.Ended.SessionID, o.Ended.RunID)
	}
	return nil
}

// hookWorkspace is the workspace an event goes to: the open run's, else
// the nearest known workspace at or above the hook's cwd (else project,
// the runtime's project directory such as $CLAUDE_PROJECT_DIR, else the
// current directory), else project if that contains it, else that
// directory itself.
func hookWorkspace(in claudecode.HookInput, st claudecode.HookState, stateDir, project string) (string, error) {
	if st.Run != "" && st.Workspace != "" {
		return st.Workspace, nil
	}
	start := in.Cwd
	if start == "" {
		start = project
	}
	if start == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		start = wd
	}
	dir, err := resolveDir(start)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", start, err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if statedir.Known(stateDir, d) {
			return d, nil
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if project != "" {
		if p, err := resolveDir(project); err == nil && within(dir, p) {
			return p, nil
		}
	}
	return dir, nil
}

func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// hookStateFile is a session's HookState in
// <state dir>/hooks/<runtime>/<session>.json, held under an flock on
// <session>.lock while one hook runs: hooks of one session run one at a
// time (Claude Code runs parallel tool calls' hooks at once).
type hookStateFile struct {
	path, session string
	lock          *os.File
}

func openHookState(ctx context.Context, stateDir, runtime, session string) (*hookStateFile, error) {
	dir := filepath.Join(stateDir, "hooks", runtime)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	name := claudecode.HookStateName(session)
	lock, err := fsutil.Lock(ctx, filepath.Join(dir, name+".lock"), -1)
	if err != nil {
		return nil, err
	}
	return &hookStateFile{path: filepath.Join(dir, name+".json"), session: session, lock: lock}, nil
}

// load is the session's state; a missing or unreadable file is a fresh
// session (a reused run id is then skipped by applyPlan).
func (h *hookStateFile) load() claudecode.HookState {
	fresh := claudecode.HookState{Session: h.session}
	data, err := os.ReadFile(h.path)
	if err != nil {
		return fresh
	}
	var st claudecode.HookState
	if json.Unmarshal(data, &st) != nil || st.Session != h.session || st.Turns < 0 {
		return fresh
	}
	return st
}

// save writes the state atomically: temp file, fsync, rename.
func (h *hookStateFile) save(st claudecode.HookState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return fsutil.WriteFile(h.path, append(data, '\n'), 0o600)
}

func (h *hookStateFile) close() { h.lock.Close() }
