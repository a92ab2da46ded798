// Package plural writes counts the way people read them: "1 path",
// "2 paths", never "2 path(s)". Every message of ckpt that counts
// something uses it, so that the rule lives in one place.
package plural

import "strconv"

// Count is n and the noun, in the plural unless n is 1 ("1 path",
// "0 paths", "3 checkpoints"). A noun whose plural is not noun+"s" is
// given its plural: Count(n, "directory", "directories").
func Count(n int, noun string, pluralForm ...string) string {
	s := strconv.Itoa(n) + " "
	switch {
	case n == 1:
		return s + noun
	case len(pluralForm) > 0:
		return s + pluralForm[0]
	}
	return s + noun + "s"
}
