package cli

import (
	"io"
	"os"
	"strconv"
	"strings"
)

// terminalWidth returns the number of columns of the terminal w writes to:
// the window size the terminal reports, or else $COLUMNS; 0 when neither
// says, and then nothing is cut to fit.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if n := windowWidth(f); n > 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return 0
}
