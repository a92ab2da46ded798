package config

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseSize parses a byte count: plain bytes ("100", "100B"), or a number
// with a binary (KiB, MiB, GiB, TiB) or decimal (KB, MB, GB, TB) unit.
// Units are case-insensitive, a space may separate them from the number, and
// the number may have a fraction ("1.5MiB"); a fraction of a byte is
// dropped. Negative sizes and sizes above math.MaxInt64 are errors.
func ParseSize(s string) (int64, error) {
	bad := fmt.Errorf("invalid size %q (use bytes or units like 50MiB)", s)
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 64 {
		return 0, bad
	}
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	mult, ok := sizeUnits[strings.ToLower(unit)]
	whole, frac, _ := strings.Cut(num, ".")
	if !ok || whole+frac == "" || strings.Contains(frac, ".") {
		return 0, bad
	}
	// Exact arithmetic: (whole.frac * mult) = digits * mult / 10^len(frac).
	n, _ := new(big.Int).SetString(whole+frac, 10)
	n.Mul(n, big.NewInt(mult))
	n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil))
	if !n.IsInt64() {
		return 0, fmt.Errorf("size %q is too large (at most %d bytes)", s, int64(math.MaxInt64))
	}
	return n.Int64(), nil
}

const day = 24 * time.Hour

// ParseDuration parses a Go duration ("20ms", "1h30m") optionally preceded by
// whole days: "30d", "1d12h". A sign applies to the whole value, as in Go.
func ParseDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("invalid duration %q (use units like 20ms, 15m, 2h or 30d)", s)
	t := strings.TrimSpace(s)
	days, rest, hasDays := strings.Cut(t, "d")
	if !hasDays {
		d, err := time.ParseDuration(t)
		if err != nil {
			return 0, bad
		}
		return d, nil
	}
	neg := false
	if days != "" && (days[0] == '-' || days[0] == '+') {
		neg = days[0] == '-'
		days = days[1:]
	}
	if days == "" || strings.TrimLeft(days, "0123456789") != "" {
		return 0, bad
	}
	tooLarge := fmt.Errorf("duration %q is too large", s)
	n, err := strconv.ParseInt(days, 10, 64)
	if err != nil || n > int64(math.MaxInt64/day) {
		return 0, tooLarge
	}
	d := time.Duration(n) * day
	if rest != "" {
		if rest[0] == '-' || rest[0] == '+' {
			return 0, bad
		}
		r, err := time.ParseDuration(rest)
		if err != nil {
			return 0, bad
		}
		if r > math.MaxInt64-d {
			return 0, tooLarge
		}
		d += r
	}
	if neg {
		d = -d
	}
	return d, nil
}
