package main

import "github.com/spf13/cobra"

func newHookCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{Use: "hook", Short: "Agent runtime hook handlers"}
}
