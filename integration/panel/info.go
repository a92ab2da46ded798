package panel

import "github.com/ckptdev/ckpt/integration/panel/panelinfo"

// Info is what a running daemon tells `ckpt ui` about its panel
// (panelinfo.Info).
type Info = panelinfo.Info

// InfoPath is where the daemon that owns stateDir keeps its panel's Info.
func InfoPath(stateDir string) string { return panelinfo.Path(stateDir) }

// WriteInfo writes info to path atomically, mode 0600.
func WriteInfo(path string, info Info) error { return panelinfo.Write(path, info) }

// ReadInfo reads the Info at path.
func ReadInfo(path string) (Info, error) { return panelinfo.Read(path) }
