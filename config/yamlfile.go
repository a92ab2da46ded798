package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileLayer reads one YAML config file. A missing file is not an error: ok
// is false. Keys are case-insensitive, and a nested map names its leaves
// by their dotted paths ("ignore: {a: 1}" sets "ignore.a", an unknown key),
// as ckpt has always read its files; a key written twice in different
// cases is an error.
func fileLayer(path string) (l layer, ok bool, err error) {
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
	data, err := os.ReadFile(path)
	if err != nil {
		return layer{}, false, &Error{Source: path, Err: err}
	}
	raw, err := parseYAML(data)
	var keyErr *Error
	if errors.As(err, &keyErr) {
		keyErr.Source = path
		return layer{}, false, keyErr
	}
	if err != nil {
		return layer{}, false, &Error{Source: path, Err: err}
	}
	return layer{
		source: func(string) string { return path },
		base:   filepath.Dir(path),
		raw:    raw,
	}, true, nil
}

// parseYAML turns a config file's bytes into its keys (lower case, nested
// maps flattened to dotted paths) and their raw values.
func parseYAML(data []byte) (map[string]any, error) {
	doc := map[string]any{}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("malformed YAML: %w", err)
	}
	raw := map[string]any{}
	spelled := map[string]string{} // lower-case key -> as written
	if err := flatten(raw, spelled, doc, ""); err != nil {
		return nil, err
	}
	return raw, nil
}

// flatten adds m's leaves to raw under their lower-case dotted paths.
func flatten(raw map[string]any, spelled map[string]string, m map[string]any, prefix string) error {
	for k, v := range m {
		full := prefix + k
		lower := strings.ToLower(full)
		if nested, ok := asMap(v); ok {
			if err := flatten(raw, spelled, nested, full+"."); err != nil {
				return err
			}
			continue
		}
		if first, dup := spelled[lower]; dup {
			a, b := first, full
			if b < a {
				a, b = b, a
			}
			return &Error{Key: lower, Err: fmt.Errorf("set twice, as %q and %q (keys are case-insensitive)", a, b)}
		}
		spelled[lower] = full
		raw[lower] = lowerKeys(v)
	}
	return nil
}

// asMap is v as a map with string keys, if it is a map.
func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[fmt.Sprintf("%v", k)] = e
		}
		return out, true
	}
	return nil, false
}

// lowerKeys lower-cases the keys of the maps inside a value, as for the
// top level (a map in a value is refused later, but named the same way).
func lowerKeys(v any) any {
	if m, ok := asMap(v); ok {
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[strings.ToLower(k)] = lowerKeys(x)
		}
		return out
	}
	if list, ok := v.([]any); ok {
		for i, e := range list {
			list[i] = lowerKeys(e)
		}
	}
	return v
}
