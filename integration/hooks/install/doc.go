// Package install merges ckpt's hook entries into an agent runtime's own
// settings file, and takes them out again. It is pure: it turns a
// settings file's bytes into new bytes; the command (ckpt integrate)
// reads, backs up and writes the files.
//
// An entry is ckpt's when its command runs a binary named ckpt with the
// arguments `hook RUNTIME`: installing replaces ckpt's entries of that
// runtime (wherever the person moved them) and leaves every other hook
// and key as it was, in its place; uninstalling removes only them.
package install
