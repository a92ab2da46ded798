package store

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// residentLog is how many bytes of the value log of the store in dir are
// resident in this process (the Rss of its mappings in /proc/self/smaps).
func residentLog(t *testing.T, dir string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) >= 6 && strings.Contains(fields[0], "-") {
			in = strings.HasPrefix(fields[5], dir) && strings.HasSuffix(fields[5], ".vlog")
			continue
		}
		if kb, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 10, 64)
			total += n << 10
		}
	}
	return total
}

// TestWritesDoNotStayResident: contents written to the value log do not
// stay in the writing process's memory, and read back intact after their
// pages were released.
func TestWritesDoNotStayResident(t *testing.T) {
	old := releaseLogEvery
	releaseLogEvery = 4 << 20
	defer func() { releaseLogEvery = old }()
	dir := t.TempDir()
	s, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var hashes []Hash
	var datas [][]byte
	const total = 48 << 20
	for written := 0; written < total; written += 1 << 20 {
		data := confRandBytes(rng, 1<<20) // incompressible: 1 MiB of value log each
		hashes = append(hashes, confPutBlob(t, s, data))
		datas = append(datas, data)
	}
	if got := residentLog(t, s.dbDir()); got > 3*releaseLogEvery {
		t.Errorf("%d MiB of value log resident after writing %d MiB, want at most %d MiB", got>>20, total>>20, 3*releaseLogEvery>>20)
	}
	for i, h := range hashes {
		if got := confReadBlob(t, s, h); !bytes.Equal(got, datas[i]) {
			t.Fatalf("blob %d differs after its pages were released", i)
		}
	}
}
