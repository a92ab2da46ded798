package config

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{in: "100", want: 100},
		{in: "0", want: 0},
		{in: "100B", want: 100},
		{in: "100 b", want: 100},
		{in: "  7MB ", want: 7_000_000},
		{in: "512KiB", want: 512 << 10},
		{in: "50MiB", want: 50 << 20},
		{in: "50mib", want: 50 << 20},
		{in: "1.5MiB", want: 1572864},
		{in: ".5KiB", want: 512},
		{in: "1.KiB", want: 1024},
		{in: "0.1KiB", want: 102}, // a fraction of a byte is dropped
		{in: "2GB", want: 2_000_000_000},
		{in: "1kb", want: 1000},
		{in: "3GiB", want: 3 << 30},
		{in: "1TB", want: 1e12},
		{in: "8388607TiB", want: 8388607 << 40},
		{in: "9223372036854775807", want: math.MaxInt64},
		{in: "9223372036854775808", wantErr: "too large"},
		{in: "8388608TiB", wantErr: "too large"},
		{in: "", wantErr: "invalid size"},
		{in: "abc", wantErr: "invalid size"},
		{in: "-1", wantErr: "invalid size"},
		{in: "+1", wantErr: "invalid size"},
		{in: "1.2.3", wantErr: "invalid size"},
		{in: "MiB", wantErr: "invalid size"},
		{in: ".", wantErr: "invalid size"},
		{in: "1 MiB B", wantErr: "invalid size"},
		{in: "1EiB", wantErr: "invalid size"},
		{in: "1e6", wantErr: "invalid size"},
		{in: "1M", wantErr: "invalid size"},
		{in: "1_000", wantErr: "invalid size"},
		{in: strings.Repeat("1", 65), wantErr: "invalid size"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSize(%q) = %d, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "20ms", want: 20 * time.Millisecond},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "0", want: 0},
		{in: "30d", want: 30 * 24 * time.Hour},
		{in: "0d", want: 0},
		{in: " 7d ", want: 7 * 24 * time.Hour},
		{in: "1d12h", want: 36 * time.Hour},
		{in: "1d0.5h", want: 24*time.Hour + 30*time.Minute},
		{in: "-1d", want: -24 * time.Hour},
		{in: "-1d12h", want: -36 * time.Hour},
		{in: "+2d", want: 48 * time.Hour},
		{in: "106751d23h", want: 106751*24*time.Hour + 23*time.Hour},
		{in: "106752d", wantErr: "too large"},
		{in: "106751d24h", wantErr: "too large"},
		{in: "99999999999999999999d", wantErr: "too large"},
		{in: "1.5d", wantErr: "invalid duration"},
		{in: "d", wantErr: "invalid duration"},
		{in: "-d", wantErr: "invalid duration"},
		{in: "1dd", wantErr: "invalid duration"},
		{in: "1d-1h", wantErr: "invalid duration"},
		{in: "1d1d", wantErr: "invalid duration"},
		{in: "1h1d", wantErr: "invalid duration"},
		{in: "30", wantErr: "invalid duration"},
		{in: "", wantErr: "invalid duration"},
		{in: "soon", wantErr: "invalid duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseDuration(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"100", "50MiB", "1.5MiB", "2GB", "512KiB", "0.1kib", " 7 mb ", "9223372036854775807", "8388608TiB", "", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d < 0", s, n)
		}
		// Plain bytes round-trip, with or without a B.
		for _, f := range []string{"%d", "%dB", "%d b"} {
			in := strings.Replace(f, "%d", strconv.FormatInt(n, 10), 1)
			if m, err := ParseSize(in); err != nil || m != n {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d (from %q)", in, m, err, n, s)
			}
		}
		// Units are case-insensitive.
		for _, in := range []string{strings.ToUpper(s), strings.ToLower(s)} {
			if m, err := ParseSize(in); err != nil || m != n {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d (from %q)", in, m, err, n, s)
			}
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"20ms", "1h30m", "30d", "1d12h", "-1d", "0", "106751d23h", "1.5d", "d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if !strings.Contains(s, "d") {
			// Without days it is exactly time.ParseDuration (after trimming).
			want, werr := time.ParseDuration(strings.TrimSpace(s))
			if (err == nil) != (werr == nil) || d != want {
				t.Fatalf("ParseDuration(%q) = %v, %v; time.ParseDuration = %v, %v", s, d, err, want, werr)
			}
		}
		if err != nil {
			return
		}
		// Go's formatting round-trips.
		if d2, err := ParseDuration(d.String()); err != nil || d2 != d {
			t.Fatalf("ParseDuration(%q) = %v, %v; want %v (from %q)", d.String(), d2, err, d, s)
		}
		// Whole days round-trip through the day form.
		if d >= 0 && d%day == 0 {
			in := strconv.FormatInt(int64(d/day), 10) + "d"
			if d2, err := ParseDuration(in); err != nil || d2 != d {
				t.Fatalf("ParseDuration(%q) = %v, %v; want %v", in, d2, err, d)
			}
		}
	})
}
