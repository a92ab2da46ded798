package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
)

// Engine is the part of ckpt that links the store: the embedded engine
// and the MCP server. ckptd gives one (cmd/internal/engine) when it runs
// `ckptd ckpt ARGS`; the ckpt binary gives none, so that it starts in
// about the time of a binary that does nothing, and a command that needs
// the engine (no daemon serves the workspace, ckpt mcp) is run by ckptd
// instead: the same command line, in the same process (exec), with the
// same stdin, stdout, stderr and exit code.
type Engine interface {
	// Embedded opens the workspace's engine in this process; closer lets
	// go of its store.
	Embedded(ctx context.Context, cfg *config.Config, root string, progress func(done, total int), warn func(string)) (b Backend, closer func() error, err error)
	// ImportProgress is the callback that draws the progress of a first
	// import of what on a terminal, or nil when stderr is not one. It is
	// the engine's: the ckpt binary draws no bar of its own.
	ImportProgress(what string) func(done, total int)
	// ServeMCP serves ckpt's MCP tools on stdin and stdout, b answering.
	ServeMCP(ctx context.Context, b MCPBackend) error
	// Message is the one line that stands for an engine error that has its
	// own (a full disk); ok is false for any other error.
	Message(err error) (msg string, ok bool)
	// Replica is the replication work that needs the store or the remote.
	Replica() Replica
}

// Replica pushes, clones and lists through the remote (integration/replica).
type Replica interface {
	// Push uploads what the remote lacks of an embedded workspace.
	Push(ctx context.Context, cfg *config.Config, b Backend) (api.PushResult, error)
	// Status is an embedded workspace's replication position.
	Status(cfg *config.Config, b Backend) (*api.Replication, error)
	// Pull brings an embedded workspace the checkpoints of its name in the
	// remote that it lacks, and its files up to the newest.
	Pull(ctx context.Context, cfg *config.Config, b Backend) (api.PullResult, error)
	// Clone materialises NAME[@ID] of the remote at url in dir.
	Clone(ctx context.Context, cfg *config.Config, url, target, dir string) (api.CloneResult, error)
	// List is the remote's workspaces and their checkpoints.
	List(ctx context.Context, cfg *config.Config, url string) (api.RemoteList, error)
}

// Backend answers the commands: the daemon's client or the embedded engine.
type Backend = backend

// MCPBackend is what the MCP tools call; each call opens the backend anew.
type MCPBackend interface {
	Status(ctx context.Context) (api.Status, error)
	RunDiff(ctx context.Context, req api.RunRequest) (api.RunDiff, error)
	History(ctx context.Context, req api.HistoryRequest) (api.History, error)
	Restore(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	Undo(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error)
}

// Options are how a binary runs the commands.
type Options struct {
	// Engine is nil in ckpt, set in ckptd.
	Engine Engine
	// Args are the arguments after the program name (nil: os.Args[1:]).
	Args []string
	// Client is the ckpt binary's path when ckptd runs a command for it:
	// hooks and integrate name that one, not ckptd.
	Client string
}

// engineArg is ckptd's first argument for running a ckpt command:
// `ckptd ckpt [--client=PATH] ARGS...`.
const engineArg = "ckpt"

// consumedStdin is what a hook read from stdin before it needed the
// engine: ckptd gets it as its stdin.
var consumedStdin []byte

// errEngineLate: the engine was needed after the command had already
// answered through a daemon, which then went away.
var errEngineLate = errors.New("the daemon stopped answering during the command, and this ckpt needs ckptd to go on without it: run the command again")

// execEngine replaces this ckpt with `ckptd ckpt ARGS`, which runs the same
// command with the engine linked. It returns only on failure.
func (g *globalOptions) execEngine() error {
	if g.opens > 0 {
		return errEngineLate
	}
	bin, err := ckptdBinary()
	if err != nil {
		return fmt.Errorf("no daemon serves %s, and working without one needs ckptd (the engine) beside ckpt or on $PATH", g.rootOrDir())
	}
	self, _ := os.Executable()
	argv := append([]string{bin, engineArg, "--client=" + self}, g.args...)
	if consumedStdin != nil {
		if err := replayStdin(consumedStdin); err != nil {
			return fmt.Errorf("hand the hook's input to ckptd: %w", err)
		}
	}
	err = syscall.Exec(bin, argv, os.Environ())
	return fmt.Errorf("run %s: %w", bin, err)
}

func (g *globalOptions) rootOrDir() string {
	if g.root != "" {
		return g.root
	}
	return "the workspace"
}

// replayStdin makes fd 0 a memory file holding data, read from its start.
func replayStdin(data []byte) error {
	fd, err := unix.MemfdCreate("ckpt-stdin", 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), "ckpt-stdin")
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	return unix.Dup2(fd, 0)
}

// clientPath is Options.Client.
var clientPath string

// ckptExecutable is the ckpt binary's absolute path, symlinks resolved: a
// runtime whose PATH lacks ckpt still finds it. Run by ckptd, it is the
// ckpt that handed the command over, else the ckpt beside ckptd or on
// $PATH.
func ckptExecutable() (string, error) {
	exe := clientPath
	if exe == "" && runByEngine {
		exe = siblingOrPath("ckpt")
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("find the ckpt binary: %w", err)
		}
	}
	exe, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return "", fmt.Errorf("find the ckpt binary: %w", err)
	}
	return filepath.Abs(exe)
}

// runByEngine: this process is ckptd running a ckpt command.
var runByEngine bool

// siblingOrPath is the binary name beside this one, else on $PATH; "" if
// neither.
func siblingOrPath(name string) string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	p, _ := exec.LookPath(name)
	return p
}
