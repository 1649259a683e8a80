package bundle

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A file name may hold any byte but NUL and '/': a newline, carriage
// return or terminal escape in one would forge lines of anefix's output or
// recolour the terminal if printed raw. The readers of input trees
// (bundles, compiled packages) put names into messages through
// DisplayName, and cmd/anefix quotes the paths it is given the same way, so
// this is the one rule for how such names look.

// IsControl reports the runes a name must not print raw: C0 controls, DEL
// and C1 controls.
func IsControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }

// DisplayName returns s unchanged when it prints as itself, else Go-quoted
// ("a\nb"), so that the name can still be typed back.
func DisplayName(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
