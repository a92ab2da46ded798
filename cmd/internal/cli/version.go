package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// versionOutput is `ckpt version --json`.
type versionOutput struct {
	Version string `json:"version"` // this ckpt's
	// DaemonVersion is the version of the ckptd that answers on the
	// socket; "" when none does.
	DaemonVersion string `json:"daemon_version,omitempty"`
}

func newVersionCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ckpt's version, and the daemon's if one answers",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			out := versionOutput{Version: api.Version, DaemonVersion: daemonVersion(cmd)}
			return g.emit(out, func(w io.Writer) {
				fmt.Fprintf(w, "ckpt %s\n", out.Version)
				if out.DaemonVersion != "" {
					fmt.Fprintf(w, "ckptd %s\n", out.DaemonVersion)
				}
			})
		},
	}
}

// daemonVersion asks the daemon on the configured socket for its version;
// "" when none answers (or the configuration does not say where).
func daemonVersion(cmd *cobra.Command) string {
	cfg, err := config.Load(config.Options{Flags: cmd.Flags()})
	if err != nil {
		return ""
	}
	c, err := client.Dial(cfg.Socket, client.Options{}) // ckpt version reports a mismatch itself
	if err != nil {
		return ""
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(cmd.Context(), healthTimeout)
	defer cancel()
	h, err := c.Health(ctx)
	if err != nil {
		return ""
	}
	return h.Version
}
