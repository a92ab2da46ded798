// Package textdiff renders the difference between two versions of a file
// as a unified diff, the text `diff -u`, git diff, patch and git apply
// read, and colors such a diff for terminals.
//
// The line diff itself (Myers' algorithm, bounded on pathological inputs)
// is github.com/aymanbagabas/go-udiff, gopls' diff as a module. This
// package turns its edits into hunks with the conventions of GNU diff and
// git: "a/" and "b/" prefixes, /dev/null for a side that does not exist, a
// range of length 1 written without ",1", an empty range as the line
// before it followed by ",0", and "\ No newline at end of file" markers.
// Content that looks binary (a NUL byte in the first 8000 bytes, as git
// sniffs, or invalid UTF-8) gets no patch, only the binary flag.
package textdiff
