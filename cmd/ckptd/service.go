package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/service"
	"github.com/ckptdev/ckpt/internal/plural"
)

func newInstallServiceCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "install-service [DIR...]",
		Short: "Write a systemd user unit that runs ckptd watch DIR... (default: the current directory)",
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			return runInstallService(cmd, cmd.Flags(), args)
		},
	}
}

func runInstallService(cmd *cobra.Command, flags *pflag.FlagSet, dirs []string) error {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	roots, err := resolveDirs(dirs)
	if err != nil {
		return err
	}
	cfg, err := config.Load(config.Options{Flags: flags})
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fmt.Errorf("find ckptd's own path: %w", err)
	}
	unit, err := service.Unit(service.Options{Executable: exe, Dirs: roots, Env: serviceEnv(cfg)})
	if err != nil {
		return err
	}
	path, err := service.Path(nil)
	if err != nil {
		return err
	}
	if err := service.Write(path, unit); err != nil {
		return fmt.Errorf("write the unit: %w", err)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "wrote %s (ckptd watch for %s)\n", path, plural.Count(len(roots), "workspace"))
	fmt.Fprintf(out, "enable and start it with:\n  %s\n", service.EnableHint)
	fmt.Fprintf(out, "its logs: journalctl --user -u ckptd\n")
	return nil
}

// serviceEnv pins the state directory and socket the unit must use when
// they are not what the daemon would find by itself under systemd (where
// XDG_STATE_HOME and CKPT_* are usually unset).
func serviceEnv(cfg *config.Config) map[string]string {
	env := map[string]string{}
	home, _ := os.UserHomeDir()
	if home == "" || cfg.StateDir != filepath.Join(home, ".local", "state", "ckpt") {
		env["CKPT_STATE_DIR"] = cfg.StateDir
	}
	if cfg.Socket != filepath.Join(cfg.StateDir, "ckptd.sock") {
		env["CKPT_SOCKET"] = cfg.Socket
	}
	return env
}
