package uitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A daemon serving two workspaces: the panel offers a switcher, and each
// view reads the workspace it names.
func TestWorkspaceSwitcher(t *testing.T) {
	d := startDaemon(t, map[string]string{"a.txt": "1\n"})
	other := filepath.Join(t.TempDir(), "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "b.txt"), []byte("1\n"), 0o644)
	other, _ = filepath.EvalSymlinks(other)
	if out, err := exec.Command(bins.Ckptd, "watch", "--state-dir", d.state, other).CombinedOutput(); err != nil {
		t.Fatalf("ckptd watch (hand over) %s: %v\n%s", other, err, out)
	}
	if out, err := exec.Command(bins.Ckpt, "-C", other, "--state-dir", d.state, "run", "start", "--session", "o", "--run", "only-here").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := d.open(t, "/timeline")
	p.wait(`!document.getElementById('ws-switch').hidden && document.querySelectorAll('#ws-select option').length === 2`)
	if strings.Contains(p.str(`document.getElementById('main').innerText`), "only-here") {
		t.Fatal("the first workspace's timeline shows the other's run")
	}
	js[bool](p, `(() => { const s = document.getElementById('ws-select'); s.value = `+jsString(other)+`; s.dispatchEvent(new Event('change')); return true })()`)
	p.wait(`document.getElementById('main').innerText.includes('only-here')`)
	p.shot("switched")
}

func jsString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
