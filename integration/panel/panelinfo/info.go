// Package panelinfo is the file in which a running daemon tells `ckpt ui`
// where its panel is. It is apart from the panel so that the client reads
// it without linking the panel's HTTP server.
package panelinfo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Info is what a running daemon tells `ckpt ui` about its panel: the URL
// (with the token) and the daemon's pid. It is kept in Path, readable by
// the daemon's user only.
type Info struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
}

// Path is where the daemon that owns stateDir keeps its panel's Info.
func Path(stateDir string) string { return filepath.Join(stateDir, "ui.json") }

// Write writes info to path atomically, mode 0600.
func Write(path string, info Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ui-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Read reads the Info at path.
func Read(path string) (Info, error) {
	var info Info
	b, err := os.ReadFile(path)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("%s: %w", path, err)
	}
	return info, nil
}
