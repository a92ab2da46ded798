package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// A layer is the raw values of one source (a file, the environment, the
// flags), before they are checked and merged.
type layer struct {
	source func(key string) string // how an *Error names the source of key
	base   string                  // relative paths are relative to this; "" = current directory
	raw    map[string]any          // key -> raw value; unknown keys included
}

// decode checks every value of the layer and returns the typed ones.
func (l layer) decode(home string) (map[string]any, error) {
	names := make([]string, 0, len(l.raw))
	for name := range l.raw {
		names = append(names, name)
	}
	sort.Strings(names)
	typed := make(map[string]any, len(names))
	for _, name := range names {
		k := lookupKey(name)
		if k == nil {
			return nil, &Error{Key: name, Source: l.source(name),
				Err: fmt.Errorf("%w (known keys: %s)", errUnknownKey, keyNames())}
		}
		raw := l.raw[name]
		if raw == nil {
			continue // "key:" with no value counts as not set
		}
		v, err := k.parse(raw, l.base, home)
		if err != nil {
			return nil, &Error{Key: name, Source: l.source(name), Err: err}
		}
		typed[name] = v
	}
	return typed, nil
}

func envName(key string) string  { return "CKPT_" + strings.ToUpper(key) }
func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// splitList splits a comma-separated env or flag value.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// splitFlagList splits an ignore flag's string or the elements of a slice
// flag on commas. An explicitly empty flag is an empty list, not nil.
func splitFlagList(val any) []string {
	out := []string{}
	switch v := val.(type) {
	case string:
		out = append(out, splitList(v)...)
	case []string:
		for _, s := range v {
			out = append(out, splitList(s)...)
		}
	}
	return out
}

// envLayer reads CKPT_<KEY> for every key; empty variables count as unset.
func envLayer(getenv func(string) string) layer {
	raw := map[string]any{}
	for _, k := range keys {
		s := getenv(envName(k.name))
		if s == "" {
			continue
		}
		if k.name == "ignore" {
			raw[k.name] = splitList(s)
		} else {
			raw[k.name] = s
		}
	}
	return layer{source: func(key string) string { return "env " + envName(key) }, raw: raw}
}

// flagLayer reads the flags named like keys that were explicitly set.
func flagLayer(fs *pflag.FlagSet) layer {
	raw := map[string]any{}
	for _, k := range keys {
		if fs == nil {
			break
		}
		f := fs.Lookup(flagName(k.name))
		if f == nil || !f.Changed {
			continue
		}
		var val any = f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			val = sv.GetSlice()
		}
		if k.name == "ignore" {
			val = splitFlagList(val)
		}
		raw[k.name] = val
	}
	return layer{source: func(key string) string { return "flag --" + flagName(key) }, raw: raw}
}
