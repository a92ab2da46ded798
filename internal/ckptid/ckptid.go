// Package ckptid is the form of a checkpoint id, for the engine and for
// the packages the thin ckpt client links (which do not link the engine).
package ckptid

// Valid reports whether id has the form of a checkpoint id (and of a
// safe file name): 1 to 128 of [A-Za-z0-9._-], not starting with . _ or -.
// It is hand-written, not a regexp: a bounded repetition compiles into a
// large program at every process start, and every command starts one.
func Valid(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}
