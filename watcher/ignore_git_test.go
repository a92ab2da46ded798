package watcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ignGitFixture has ignore files exercising every rule git has; the cases
// below are created as files or directories next to it.
var ignGitFixture = ignTree{
	".gitignore": strings.Join([]string{
		"# a comment",
		"*.log",
		"!keep.log",
		"build/",
		"/rootonly.txt",
		"docs/*.pdf",
		"**/tmp",
		"logs/**",
		"a/**/z",
		`\#hash.txt`,
		`\!bang.txt`,
		`trail.txt\ `,
		"spaced.txt   ",
		"tab.txt\t",
		"file[0-9].dat",
		"?.q",
		"[!a]bc.x",
		`star\*.txt`,
		"v[[:digit:]].ver",
		"*.o",
		"vendor/",
		"!vendor/keep/",
		"!vendor/keep/k.go",
		"secret/*",
		"!secret/public.txt",
		"node_modules",
		"cache/",
		"**/foo/bar",
		"gen/",
		"!keep.info",
		"mid/x**/y",
		"shadow.txt",
		"",
	}, "\n"),
	"build/.gitignore":       "!*\n", // never read: build/ is excluded
	"sub/.gitignore":         "*.tmp\n!important.tmp\n/local.txt\ndeep/\n!*.log\n!gen/\n",
	"sub/inner/.gitignore":   "!/shadow.txt\n",
	"crlf/.gitignore":        "x.crlf\r\n#c\r\ny.crlf",
	"bom/.gitignore":         "\xef\xbb\xbfbom.txt\n",
	"sym-target":             "*.sym\n",
	"symgi/.gitignore":       "symlink:../sym-target",
	".git/info/exclude":      "excluded-by-info.txt\n*.info\n",
	"nested/a/b/.gitignore":  "/c/\n",
	"nested/a/b/c/d.txt":     "",
	"nested/a/b/x/c/d.txt":   "",
	"nested/a/.gitignore":    "b/x/\n",
	"nested/a/b/y/keep.txt":  "",
	"nested/a/b/x/other.txt": "",
	"only/.gitignore":        "*\n!*/\n!*.go\n",
	"top/.gitignore":         "/*\n!/src/\n",
}

func TestIgnoredAgreesWithGit(t *testing.T) {
	cases := []struct {
		name  string
		path  string
		isDir bool
		want  bool
	}{
		{"glob", "app.log", false, true},
		{"glob non-ASCII", "ünï.log", false, true},
		{"negation", "keep.log", false, false},
		{"nested negation beats root", "sub/x.log", false, false},
		{"dir-only pattern on dir", "build", true, true},
		{"file under excluded dir", "build/out.bin", false, true},
		{"dir-only unanchored", "src/build", true, true},
		{"dir-only pattern on file", "notdir/build", false, false},
		{"anchored at root", "rootonly.txt", false, true},
		{"anchored not below", "sub/rootonly.txt", false, false},
		{"middle slash anchors", "docs/a.pdf", false, true},
		{"star does not cross slash", "docs/x/a.pdf", false, false},
		{"leading ** at root", "tmp", true, true},
		{"leading ** deep file", "x/y/tmp", false, true},
		{"trailing ** not the dir", "logs", true, false},
		{"trailing ** inside", "logs/a.txt", false, true},
		{"trailing ** deep", "logs/sub/b.txt", false, true},
		{"middle ** zero dirs", "a/z", false, true},
		{"middle ** many dirs", "a/b/c/z", false, true},
		{"not under middle **", "a/b", true, false},
		{"escaped hash", "#hash.txt", false, true},
		{"escaped bang", "!bang.txt", false, true},
		{"escaped trailing space", "trail.txt ", false, true},
		{"escaped space needed", "trail.txt", false, false},
		{"trailing spaces trimmed", "spaced.txt", false, true},
		{"trailing tab kept", "tab.txt\t", false, true},
		{"trailing tab not trimmed", "tab.txt", false, false},
		{"range class", "file5.dat", false, true},
		{"range class miss", "fileX.dat", false, false},
		{"question mark", "a.q", false, true},
		{"question mark one byte", "ab.q", false, false},
		{"negated class", "xbc.x", false, true},
		{"negated class miss", "abc.x", false, false},
		{"escaped star", "star*.txt", false, true},
		{"escaped star is literal", "starx.txt", false, false},
		{"named class", "v1.ver", false, true},
		{"named class miss", "va.ver", false, false},
		{"unanchored deep", "deep/a/b/c.o", false, true},
		{"no re-include under excluded dir", "vendor/keep/k.go", false, true},
		{"no re-include of dir under excluded dir", "vendor/keep", true, true},
		{"dir/* excludes files", "secret/x.txt", false, true},
		{"dir/* allows re-include", "secret/public.txt", false, false},
		{"nested glob", "sub/a.tmp", false, true},
		{"nested negation", "sub/important.tmp", false, false},
		{"nested anchored", "sub/local.txt", false, true},
		{"nested anchored not deeper", "sub/inner/local.txt", false, false},
		{"nested dir-only", "sub/deep/f.txt", false, true},
		{"info/exclude", "excluded-by-info.txt", false, true},
		{"info/exclude glob", "sub/z.info", false, true},
		{".gitignore beats info/exclude", "keep.info", false, false},
		{"unanchored name dir", "pkg/node_modules/x.js", false, true},
		{"dir-only name on file", "other/cache", false, false},
		{"dir-only name on dir", "cache", true, true},
		{"leading ** zero dirs", "foo/bar", false, true},
		{"leading ** one dir", "q/foo/bar", false, true},
		{"excluded dir", "gen/x.go", false, true},
		{"nested re-include of dir", "sub/gen/x.go", false, false},
		{"CRLF line", "crlf/x.crlf", false, true},
		{"CRLF last line", "crlf/y.crlf", false, true},
		{"UTF-8 BOM", "bom/bom.txt", false, true},
		{"symlinked .gitignore not read", "symgi/a.sym", false, false},
		{"** after literal prefix", "mid/xa/b/y", false, true},
		{"** after literal prefix, one dir", "mid/xa/y", false, true},
		{"root rule below", "sub/shadow.txt", false, true},
		{"deeper re-include", "sub/inner/shadow.txt", false, false},
		{"anchored dir in nested file", "nested/a/b/c/d.txt", false, true},
		{"anchored dir not deeper", "nested/a/b/x/c/d.txt", false, true},
		{"relative to its own dir", "nested/a/b/x/other.txt", false, true},
		{"untouched in nested", "nested/a/b/y/keep.txt", false, false},
		{"all but dirs and .go: .go", "only/a/b.go", false, false},
		{"all but dirs and .go: other", "only/a/c.txt", false, true},
		{"all but dirs and .go: dir", "only/a", true, false},
		{"all but /src: src", "top/src/x.c", false, false},
		{"all but /src: lib", "top/lib/y.c", false, true},
		{"all but /src: file", "top/z.c", false, true},
		{"plain file", "plain.txt", false, false},
		{"plain dir", "src", true, false},
	}

	root := ignGitRepo(t)
	ignGitFixture.write(t, root)
	var paths []string
	for _, c := range cases {
		abs := filepath.Join(root, filepath.FromSlash(c.path))
		if c.isDir {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if _, err := os.Lstat(abs); err != nil {
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(abs, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		paths = append(paths, c.path)
	}
	git := gitIgnored(t, root, "", paths)

	ig := NewIgnorer(root, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if git[c.path] != c.want {
				t.Errorf("fixture: git says ignored(%q) = %v, the table says %v", c.path, git[c.path], c.want)
			}
			if got := ig.Ignored(c.path, c.isDir); got != git[c.path] {
				t.Errorf("Ignored(%q, %v) = %v, git says %v", c.path, c.isDir, got, git[c.path])
			}
		})
	}
}
