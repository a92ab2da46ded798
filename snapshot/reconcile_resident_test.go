// The race detector's runtime changes what a process keeps resident (see
// store/release_test.go): this memory test runs without it only.

//go:build !race

package snapshot

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReconcileLeavesNoTableResident: a reconcile reads every entry, so
// through the store's mappings every table of its LSM tree; it drops
// them from the process when done (they stay in the page cache). A
// daemon's start kept 78 MB of a 200,000-file store's tables resident
// until its next write released them.
func TestReconcileLeavesNoTableResident(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20,000 files")
	}
	ws, walk := unchangedWorkspace(t, 20000)
	mustNil(t, ws.Reconcile(context.Background(), walk))
	tables := residentTables(t, filepath.Join(ws.st.Dir(), "db"))
	t.Logf("tables resident after a reconcile: %d KiB", tables>>10)
	if tables > 2<<20 { // 4.3 MiB when none were released
		t.Errorf("%d KiB of the store's tables stay resident after a reconcile, want at most 2048", tables>>10)
	}
}

// residentTables is how many bytes of the .sst files in dir are resident
// in this process (the Rss of their mappings in /proc/self/smaps).
func residentTables(t *testing.T, dir string) int64 {
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
			in = strings.HasPrefix(fields[5], dir) && strings.HasSuffix(fields[5], ".sst")
			continue
		}
		if kb, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 10, 64)
			total += n << 10
		}
	}
	return total
}
