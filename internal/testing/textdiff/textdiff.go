// Package textdiff describes where two texts differ, for tests that compare
// generated files with what they should be.
package textdiff

import (
	"strconv"
	"strings"
)

// FirstLine describes the first line where want and got differ: its number
// and both versions of it.
func FirstLine(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(no line differs)"
}
