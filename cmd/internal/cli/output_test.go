package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
)

// fillAll sets every field reachable from v (a pointer) to a value that is
// not its zero: strings that JSON escapes, negative and large numbers, two
// elements in each slice and map, times in a zone other than UTC.
func fillAll(v reflect.Value, depth int, str string) {
	switch v.Kind() {
	case reflect.Pointer:
		if depth > 6 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), depth+1, str)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 21, 41, 38, 546979957, time.FixedZone("X", 3600+1800))))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), depth+1, str)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fillAll(s.Index(i), depth+1, str)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for _, k := range []string{"b<&>", "a\u2028"} {
			e := reflect.New(v.Type().Elem()).Elem()
			fillAll(e, depth+1, str)
			m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(str)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-1 << (v.Type().Bits() - 2))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1<<(v.Type().Bits()-1) + 3)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.0 / 3)
	}
}

// TestStatusPrintedAsTheDaemonEncodedIt: `ckpt status --json` through a
// daemon of its own version prints the daemon's answer indented, without
// decoding it; that is byte for byte what decoding it into api.Status and
// encoding it again (as every other answer is printed) gives, for a
// status with every field set, and for the zero one. An answer for which
// it would not be (a string with bytes that are not UTF-8, a daemon that
// says it does not run) is not printed as it came.
func TestStatusPrintedAsTheDaemonEncodedIt(t *testing.T) {
	// encode is the answer as the daemon's writeJSON encodes it, and as
	// emit prints it decoded.
	encode := func(s api.Status) (wire, printed []byte) {
		var w bytes.Buffer
		if err := json.NewEncoder(&w).Encode(s); err != nil {
			t.Fatal(err)
		}
		var decoded api.Status
		if err := json.Unmarshal(w.Bytes(), &decoded); err != nil {
			t.Fatal(err)
		}
		var p bytes.Buffer
		enc := json.NewEncoder(&p)
		enc.SetIndent("", "  ")
		if err := enc.Encode(decoded); err != nil {
			t.Fatal(err)
		}
		return w.Bytes(), p.Bytes()
	}
	var full, invalid api.Status
	fillAll(reflect.ValueOf(&full).Elem(), 0, "a<b>&c \"d\" \\ é \ufffd \u2028 \x01 \u00a0\t")
	fillAll(reflect.ValueOf(&invalid).Elem(), 0, "a\xffb")
	notRunning := full
	notRunning.Daemon.Running = false
	for _, c := range []struct {
		name      string
		s         api.Status
		printable bool
	}{{"every field set", full, true}, {"zero", api.Status{}, false}, {"not UTF-8", invalid, false}, {"no daemon", notRunning, false}} {
		wire, want := encode(c.s)
		if got := printableAsIs(wire); got != c.printable {
			t.Errorf("%s: printableAsIs = %v, want %v", c.name, got, c.printable)
		}
		var got bytes.Buffer
		if err := writeIndented(&got, wire); err != nil {
			t.Fatal(err)
		}
		if same := bytes.Equal(got.Bytes(), want); c.printable && !same {
			t.Errorf("%s: printed as it came:\n%s\nprinted decoded:\n%s", c.name, got.Bytes(), want)
		} else if c.name == "not UTF-8" && same {
			t.Errorf("%s: prints the same as it came: the case tests nothing", c.name)
		}
	}
	if err := writeIndented(new(bytes.Buffer), []byte(`{"workspace":`)); err == nil {
		t.Error("a truncated answer printed without an error")
	}
}
