package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/viper"
)

// This file keeps the loader as it was with viper, as the oracle that the
// tests and the fuzz target compare Load and readFileLayer with: the same
// files, environment and flags must give the same Config and the same
// errors.

// viperFileLayer is fileLayer as viper read it.
func viperFileLayer(path string) (l layer, ok bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return layer{}, false, nil
	}
	if err != nil {
		return layer{}, false, &Error{Source: path, Err: err}
	}
	if fi.IsDir() {
		return layer{}, false, &Error{Source: path, Err: errors.New("is a directory, not a YAML file")}
	}
	v := viper.New()
	v.SetConfigFile(path)
	v.SetConfigType("yaml")
	if err := v.ReadInConfig(); err != nil {
		var pe viper.ConfigParseError
		if errors.As(err, &pe) {
			err = fmt.Errorf("malformed YAML: %w", pe.Unwrap())
		}
		return layer{}, false, &Error{Source: path, Err: err}
	}
	raw := map[string]any{}
	for _, k := range v.AllKeys() {
		raw[k] = v.Get(k)
	}
	return layer{
		source: func(string) string { return path },
		base:   filepath.Dir(path),
		raw:    raw,
	}, true, nil
}

// viperLoad is Load as it was with viper.
func viperLoad(opts Options) (*Config, error) {
	getenv := opts.Env
	if getenv == nil {
		getenv = os.Getenv
	}
	home := homeDir(getenv, opts.Env == nil)

	var files []string
	if d := xdgDir(getenv, "XDG_CONFIG_HOME", home, ".config"); d != "" {
		files = append(files, filepath.Join(d, "ckpt", "ckpt.yaml"))
	}
	if opts.Workspace != "" {
		ws, err := filepath.Abs(opts.Workspace)
		if err != nil {
			return nil, &Error{Source: opts.Workspace, Err: err}
		}
		files = append(files, filepath.Join(ws, "ckpt.yaml"))
	}

	var layers []layer
	var read []string
	for i, f := range files {
		l, ok, err := viperFileLayer(f)
		if err != nil {
			return nil, err
		}
		if ok && opts.Workspace != "" && i == len(files)-1 {
			if err := checkWorkspaceScope(l); err != nil {
				return nil, err
			}
		}
		if ok {
			layers = append(layers, l)
			read = append(read, f)
		}
	}
	layers = append(layers, envLayer(getenv), flagLayer(opts.Flags))

	v := viper.New()
	for _, k := range keys {
		if k.def != nil {
			v.SetDefault(k.name, k.def)
		}
	}
	for _, l := range layers {
		typed, err := l.decode(home)
		if err != nil {
			return nil, err
		}
		if err := v.MergeConfigMap(typed); err != nil {
			return nil, &Error{Source: l.source(""), Err: err}
		}
	}

	c := defaults(getenv, home)
	for _, k := range keys {
		if val := v.Get(k.name); val != nil {
			k.set(c, val)
		}
	}
	if !v.IsSet("socket") {
		c.Socket = filepath.Join(c.StateDir, "ckptd.sock")
	}
	c.Files = read
	return c, nil
}
