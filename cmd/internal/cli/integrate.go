package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/codex"
	"github.com/ckptdev/ckpt/integration/hooks/cursor"
	"github.com/ckptdev/ckpt/integration/hooks/gemini"
	"github.com/ckptdev/ckpt/integration/hooks/install"
)

// agentRuntime is one runtime `ckpt integrate` knows: its settings, the
// CLIs and the config directory (under the home directory) that show it
// is on this machine.
type agentRuntime struct {
	spec      install.Spec
	mcp       install.MCPServer
	clis      []string
	configDir string
	// approval, if set, is where a project's MCP servers are approved.
	approval *install.MCPApproval
}

var agentRuntimes = []agentRuntime{
	{claudecode.Install, claudecode.MCP, []string{"claude"}, ".claude", &claudecode.MCPApproval},
	{codex.Install, codex.MCP, []string{"codex"}, ".codex", nil},
	{gemini.Install, gemini.MCP, []string{"gemini"}, ".gemini", nil},
	{cursor.Install, cursor.MCP, []string{"cursor-agent", "cursor"}, ".cursor", nil},
}

func findRuntime(name string) (agentRuntime, bool) {
	for _, r := range agentRuntimes {
		if r.spec.Runtime == name {
			return r, true
		}
	}
	return agentRuntime{}, false
}

func runtimeNames() string {
	var names []string
	for _, r := range agentRuntimes {
		names = append(names, r.spec.Runtime)
	}
	return strings.Join(names, ", ")
}

type integrateOptions struct {
	project, user, uninstall, dryRun bool
}

func newIntegrateCommand(g *globalOptions) *cobra.Command {
	var o integrateOptions
	cmd := &cobra.Command{
		Use:   "integrate [RUNTIME]",
		Short: "Install ckpt's hooks into an agent runtime's settings (claude-code, codex, gemini, cursor)",
		Long: `Integrate merges ckpt's hooks into the runtime's own settings file: the
project's (--project, the default: the workspace's .claude/settings.json,
.codex/hooks.json, .gemini/settings.json or .cursor/hooks.json) or yours
(--user: the same under your home directory). Every hook and key already
there stays; ckpt's entries name this ckpt binary by its absolute path.
A changed file is first copied to FILE.ckpt-backup-TIMESTAMP, then
replaced atomically; running it again changes nothing. For codex it also
sets [features] hooks = true in config.toml beside hooks.json, and trusts
ckpt's handlers in ~/.codex/config.toml (Codex runs a hook only once it is
trusted). It also registers ckpt's MCP server (ckpt mcp) in the runtime's
MCP file: .mcp.json (--user: ~/.claude.json), .codex/config.toml,
.gemini/settings.json, .cursor/mcp.json.

--uninstall removes ckpt's entries only (and for codex their trust; the
feature flag stays).
--dry-run prints the change as a diff and writes nothing. A settings file
that is not valid JSON (TOML) is refused and left as it is.

Without RUNTIME it lists the runtimes found on this machine (their CLI on
PATH, or their config directory) and where ckpt's hooks are installed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			g.cmd = cmd
			if o.project && o.user {
				return exitcode.Usage(errors.New("--project and --user exclude each other"))
			}
			if len(args) == 0 {
				if o.uninstall || o.dryRun {
					return exitcode.Usage(errors.New("--uninstall and --dry-run need a RUNTIME"))
				}
				return listRuntimes(cmd, g)
			}
			r, ok := findRuntime(args[0])
			if !ok {
				return exitcode.Usage(fmt.Errorf("unknown runtime %q (known: %s)", args[0], runtimeNames()))
			}
			return integrate(cmd, g, r, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.project, "project", false, "the workspace's settings file (the default)")
	f.BoolVar(&o.user, "user", false, "your settings file, for every project")
	f.BoolVar(&o.uninstall, "uninstall", false, "remove ckpt's hooks")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the change as a diff; write nothing")
	return cmd
}

// scopeDir is the directory the settings paths are relative to: the
// workspace (-C, else the nearest known one above the current directory,
// else the current directory), or the home directory.
func scopeDir(cmd *cobra.Command, g *globalOptions, user bool) (string, error) {
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("home directory: %w", err)
		}
		return home, nil
	}
	base, err := config.Load(config.Options{Flags: cmd.Flags()})
	if err != nil {
		return "", err
	}
	return findWorkspace(g.dir, base.StateDir)
}

// runtimeStatus is one runtime in `ckpt integrate`'s list.
type runtimeStatus struct {
	Runtime   string      `json:"runtime"`
	Found     bool        `json:"found"`
	CLI       string      `json:"cli,omitempty"`
	ConfigDir string      `json:"config_dir,omitempty"`
	User      installedAt `json:"user"`
	Project   installedAt `json:"project"`
	// UserMCP and ProjectMCP are the files that register `ckpt mcp`.
	UserMCP    installedAt `json:"user_mcp"`
	ProjectMCP installedAt `json:"project_mcp"`
}

type installedAt struct {
	File      string `json:"file"`
	Installed bool   `json:"installed"`
}

func listRuntimes(cmd *cobra.Command, g *globalOptions) error {
	home, err := scopeDir(cmd, g, true)
	if err != nil {
		return err
	}
	project, err := scopeDir(cmd, g, false)
	if err != nil {
		return err
	}
	exe, err := ckptExecutable()
	if err != nil {
		return err
	}
	var list []runtimeStatus
	for _, r := range agentRuntimes {
		s := runtimeStatus{Runtime: r.spec.Runtime}
		for _, c := range r.clis {
			if p, err := exec.LookPath(c); err == nil {
				s.CLI = p
				break
			}
		}
		if info, err := os.Stat(filepath.Join(home, r.configDir)); err == nil && info.IsDir() {
			s.ConfigDir = filepath.Join(home, r.configDir)
		}
		s.Found = s.CLI != "" || s.ConfigDir != ""
		s.User = installedIn(r.spec, r.spec.File(false, home), exe)
		s.Project = installedIn(r.spec, r.spec.File(true, project), exe)
		for _, at := range []struct {
			to      *installedAt
			project bool
			dir     string
		}{{&s.UserMCP, false, home}, {&s.ProjectMCP, true, project}} {
			*at.to = installedAt{File: r.mcp.File(at.project, at.dir)}
			at.to.Installed = mcpInstalledIn(r.mcp, at.to.File, exe)
		}
		list = append(list, s)
	}
	if g.json {
		return json.NewEncoder(os.Stdout).Encode(map[string]any{"runtimes": list})
	}
	for _, s := range list {
		found := "not found"
		if s.Found {
			var where []string
			if s.CLI != "" {
				where = append(where, s.CLI)
			}
			if s.ConfigDir != "" {
				where = append(where, s.ConfigDir)
			}
			found = "found (" + strings.Join(where, ", ") + ")"
		}
		fmt.Printf("%-12s %s\n", s.Runtime, found)
		for _, at := range []struct {
			scope string
			in    installedAt
		}{{"user", s.User}, {"project", s.Project}, {"user mcp", s.UserMCP}, {"project mcp", s.ProjectMCP}} {
			state := "not installed"
			if at.in.Installed {
				state = "installed"
			}
			fmt.Printf("  %-11s %s: %s\n", at.scope, at.in.File, state)
		}
	}
	return nil
}

func installedIn(spec install.Spec, path, exe string) installedAt {
	data, err := os.ReadFile(path)
	return installedAt{File: path, Installed: err == nil && install.Installed(spec, data, exe)}
}

// settingsChange is one file integrate changes, or would.
type settingsChange struct {
	path    string
	old     []byte
	existed bool
	new     []byte
	changed bool
	backup  string
	mcp     bool // only the registration of ckpt mcp changes in it
	approve bool // only the approval of ckpt mcp changes in it
}

func integrate(cmd *cobra.Command, g *globalOptions, r agentRuntime, o integrateOptions) error {
	dir, err := scopeDir(cmd, g, o.user)
	if err != nil {
		return err
	}
	exe, err := ckptExecutable()
	if err != nil {
		return err
	}
	changes, err := planIntegrate(r, o, dir, exe)
	if err != nil {
		return err
	}
	if !o.dryRun {
		for i := range changes {
			if changes[i].backup, err = writeSettings(&changes[i]); err != nil {
				return err
			}
		}
	}
	return reportIntegrate(g, r.spec.Runtime, o, changes)
}

// planIntegrate computes every file's new content first: a malformed
// file refuses the whole change, before anything is written.
func planIntegrate(r agentRuntime, o integrateOptions, dir, exe string) ([]settingsChange, error) {
	hooksFile, err := readSettings(r.spec.File(!o.user, dir))
	if err != nil {
		return nil, err
	}
	if o.uninstall {
		hooksFile.new, hooksFile.changed, err = install.Remove(r.spec, hooksFile.path, hooksFile.old, exe)
	} else {
		hooksFile.new, hooksFile.changed, err = install.Merge(r.spec, hooksFile.path, hooksFile.old, install.Command(exe, r.spec.Runtime))
	}
	if err != nil {
		return nil, fmt.Errorf("integrate %s: %w", r.spec.Runtime, err)
	}
	changes := []settingsChange{hooksFile}
	if r.spec.Runtime == "codex" {
		more, err := planCodexConfig(o, dir, exe, hooksFile)
		if err != nil {
			return nil, fmt.Errorf("integrate %s: %w", r.spec.Runtime, err)
		}
		changes = append(changes, more...)
	}
	if changes, err = planMCP(r, o, dir, exe, changes); err != nil {
		return nil, fmt.Errorf("integrate %s: %w", r.spec.Runtime, err)
	}
	return changes, nil
}

// planCodexConfig is Codex's config.toml changes: the hooks feature flag
// beside hooks.json, and, in your ~/.codex/config.toml (Codex reads trust
// only there), the trust records of ckpt's handlers, so that Codex runs
// them without asking for a review; the records of ckpt's handlers that
// are gone are removed. --uninstall removes ckpt's records and keeps the
// flag.
func planCodexConfig(o integrateOptions, dir, exe string, hooksFile settingsChange) ([]settingsChange, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("home directory: %w", err)
	}
	flagFile := filepath.Join(dir, codex.Config)
	trustFile := filepath.Join(home, codex.Config)
	files := map[string]*settingsChange{}
	var order []string
	get := func(path string) (*settingsChange, error) {
		if c, ok := files[path]; ok {
			return c, nil
		}
		c, err := readSettings(path)
		if err != nil {
			return nil, err
		}
		c.new = c.old
		files[path] = &c
		order = append(order, path)
		return &c, nil
	}
	if !o.uninstall {
		c, err := get(flagFile)
		if err != nil {
			return nil, err
		}
		if c.new, _, err = install.EnableFlag(c.path, c.new, codex.FeatureTable, codex.FeatureKey); err != nil {
			return nil, err
		}
	}
	c, err := get(trustFile)
	if err != nil {
		return nil, err
	}
	var keep []install.Subtable
	if !o.uninstall {
		for _, t := range codex.Trusts(hooksFile.path, hooksFile.new, exe) {
			keep = append(keep, install.Subtable{Name: t.Key, Value: t.Hash})
		}
	}
	var stale []string
	for _, t := range codex.Trusts(hooksFile.path, hooksFile.old, exe) {
		if !slices.ContainsFunc(keep, func(k install.Subtable) bool { return k.Name == t.Key }) {
			stale = append(stale, t.Key)
		}
	}
	if c.new, _, err = install.RemoveSubtables(c.path, c.new, codex.TrustTable, stale); err != nil {
		return nil, err
	}
	if c.new, _, err = install.SetSubtables(c.path, c.new, codex.TrustTable, codex.TrustKey, keep); err != nil {
		return nil, err
	}
	var out []settingsChange
	for _, path := range order {
		c := files[path]
		c.changed = !bytes.Equal(c.new, c.old) || !c.existed && len(c.new) > 0
		out = append(out, *c)
	}
	return out, nil
}

func readSettings(path string) (settingsChange, error) {
	c := settingsChange{path: path}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		c.old, c.existed = data, true
	case !errors.Is(err, os.ErrNotExist):
		return c, err
	}
	return c, nil
}

// integrateResult is `ckpt integrate RUNTIME --json`: the runtime's hooks
// file and, in Also, the other files it changes (codex: config.toml).
type integrateResult struct {
	Runtime   string       `json:"runtime"`
	File      string       `json:"file"`
	Backup    string       `json:"backup"`
	Changed   bool         `json:"changed"`
	DryRun    bool         `json:"dry_run"`
	Uninstall bool         `json:"uninstall"`
	Diff      string       `json:"diff,omitempty"`
	Also      []fileResult `json:"also,omitempty"`
}

type fileResult struct {
	File    string `json:"file"`
	Backup  string `json:"backup"`
	Changed bool   `json:"changed"`
	Diff    string `json:"diff,omitempty"`
}

func reportIntegrate(g *globalOptions, runtime string, o integrateOptions, changes []settingsChange) error {
	files := make([]fileResult, len(changes))
	for i, c := range changes {
		files[i] = fileResult{File: c.path, Backup: c.backup, Changed: c.changed}
		if o.dryRun && c.changed {
			files[i].Diff = settingsDiff(c)
		}
	}
	if g.json {
		res := integrateResult{Runtime: runtime, File: files[0].File, Backup: files[0].Backup, Changed: files[0].Changed,
			DryRun: o.dryRun, Uninstall: o.uninstall, Diff: files[0].Diff, Also: files[1:]}
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	for i, f := range files {
		switch {
		case !f.Changed && o.uninstall:
			fmt.Printf("%s: no ckpt hooks for %s in %s; nothing changed\n", runtime, runtime, f.File)
		case !f.Changed && i == 0:
			fmt.Printf("%s: ckpt's hooks are already in %s; nothing changed\n", runtime, f.File)
		case !f.Changed:
			fmt.Printf("%s: %s needs no change\n", runtime, f.File)
		case o.dryRun:
			fmt.Printf("%s: would change %s:\n%s", runtime, f.File, f.Diff)
		default:
			verb := "merged ckpt's hooks into"
			switch {
			case i > 0 && changes[i].approve && o.uninstall:
				verb = "withdrew the approval of ckpt's MCP server from"
			case i > 0 && changes[i].approve:
				verb = "approved ckpt's MCP server (as Claude Code's prompt would) in"
			case i > 0 && changes[i].mcp && o.uninstall:
				verb = "removed ckpt's MCP server from"
			case i > 0 && changes[i].mcp:
				verb = "registered ckpt's MCP server (ckpt mcp) in"
			case i > 0:
				verb = "updated"
			case o.uninstall:
				verb = "removed ckpt's hooks from"
			}
			backup := "a new file"
			if f.Backup != "" {
				backup = "backup: " + f.Backup
			}
			fmt.Printf("%s: %s %s (%s)\n", runtime, verb, f.File, backup)
		}
	}
	return nil
}
