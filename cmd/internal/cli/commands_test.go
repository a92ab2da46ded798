package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// fullRoot builds ckpt with every command, as `ckpt --help` does.
func fullRoot() *cobra.Command { return newRootCommand(&globalOptions{}) }

// commandPaths lists every command of ckpt by its path ("hook codex").
func commandPaths(c *cobra.Command, prefix []string) [][]string {
	var out [][]string
	for _, sub := range c.Commands() {
		if sub.Name() == "help" || sub.Name() == "completion" {
			continue
		}
		p := append(slices.Clone(prefix), sub.Name())
		out = append(out, p)
		out = append(out, commandPaths(sub, p)...)
	}
	return out
}

// TestTopCommandsNameEveryCommand: the table that lets ckpt build only the
// command it runs names exactly the commands each builder adds.
func TestTopCommandsNameEveryCommand(t *testing.T) {
	var built, named []string
	for _, c := range fullRoot().Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			built = append(built, c.Name())
		}
	}
	for _, c := range topCommands {
		named = append(named, c.names...)
		root := &cobra.Command{Use: "ckpt"}
		c.add(root, &globalOptions{})
		var got []string
		for _, sub := range root.Commands() {
			got = append(got, sub.Name())
		}
		want := slices.Sorted(slices.Values(c.names))
		if !slices.Equal(got, want) {
			t.Errorf("builder for %v adds %v", c.names, got)
		}
	}
	slices.Sort(built)
	slices.Sort(named)
	if !slices.Equal(built, named) {
		t.Errorf("ckpt's commands %v, the table names %v", built, named)
	}
}

// execute runs a root command on args and returns what it printed.
func execute(root *cobra.Command, args []string) (string, error) {
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// TestLazyRootAnswersAsTheFullOne: a ckpt that builds only the command it
// runs prints the same help, and the same errors for bad flags and
// arguments, as one that builds them all.
func TestLazyRootAnswersAsTheFullOne(t *testing.T) {
	paths := commandPaths(fullRoot(), nil)
	if len(paths) < 25 {
		t.Fatalf("only %d commands found", len(paths))
	}
	var cases [][]string
	for _, p := range paths {
		cases = append(cases, append(slices.Clone(p), "--help"),
			append(slices.Clone(p), "--no-such-flag"),
			append([]string{"-C", "/nonexistent", "--json"}, append(slices.Clone(p), "-h")...))
	}
	cases = append(cases, []string{"--help"}, []string{"help", "status"}, []string{"statu"}, []string{},
		[]string{"--socket", "status", "log", "--help"}, []string{"completion", "bash"}, []string{"run"}, []string{"hook", "nope"},
		[]string{"hook", "claude-code", "--nope"}, []string{"hook", "claude-code", "extra", "--help"})
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := newRootCommand(&globalOptions{})
			lazy := newRootCommand(&globalOptions{args: args})
			wantOut, wantErr := execute(full, args)
			gotOut, gotErr := execute(lazy, args)
			if gotOut != wantOut {
				t.Errorf("output differs:\nlazy:\n%s\nfull:\n%s", gotOut, wantOut)
			}
			if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
				t.Errorf("error %v, want %v", gotErr, wantErr)
			}
		})
	}
}

func TestCommandName(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"status"}, "status"},
		{[]string{"--json", "log", "-n", "3"}, "log"},
		{[]string{"-C", "status", "log"}, "log"},
		{[]string{"-Cdir", "show", "x"}, "show"},
		{[]string{"--dir=status", "diff"}, "diff"},
		{[]string{"--state-dir", "s", "--socket", "k", "hook", "claude-code"}, "hook"},
		{[]string{"--", "status"}, ""},
		{[]string{"-C"}, ""},
	} {
		if got := commandName(tt.args); got != tt.want {
			t.Errorf("commandName(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"hook", "claude-code"}, "claude-code"},
		{[]string{"-C", "hook", "hook", "--json", "codex"}, "codex"},
		{[]string{"hook"}, ""},
		{[]string{"hook", "--", "claude-code"}, ""},
		{nil, ""},
	} {
		if got := subcommandName(tt.args); got != tt.want {
			t.Errorf("subcommandName(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
