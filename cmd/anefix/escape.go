package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/anefix/anefix/graph/bundle"
)

// File names may hold any byte but NUL and '/': a name with a newline,
// carriage return or terminal escape would forge lines or recolour the
// terminal when printed raw. Every report and message anefix prints for
// people goes through a safeWriter (run wires it to stderr, and to stdout
// unless the command writes a model there); how a name is quoted is
// graph/bundle's DisplayName, which the readers use for the names of the
// entries they report.

// isControl reports the runes printed escaped: C0 controls, DEL and C1
// controls.
func isControl(r rune) bool { return bundle.IsControl(r) }

// quotePath returns p unchanged when it prints as itself, else Go-quoted
// ("a\nb"), so that the name can still be typed back.
func quotePath(p string) string { return bundle.DisplayName(p) }

// escapeControls escapes the control characters of s except newline and
// tab, which the messages themselves use.
func escapeControls(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return isControl(r) && r != '\n' && r != '\t' }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || !isControl(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// safeWriter prints the paths the command was given quoted (quotePath), so a
// newline in a name is shown as \n, and escapes any other control character.
// A path split across two writes is only escaped character by character;
// the reports and messages are written whole.
type safeWriter struct {
	w     io.Writer
	paths *[]string // set once the flags are parsed
}

func (s safeWriter) Write(b []byte) (int, error) {
	out := string(b)
	if s.paths != nil {
		for _, p := range *s.paths {
			if q := quotePath(p); q != p {
				out = strings.ReplaceAll(out, p, q)
			}
		}
	}
	if _, err := io.WriteString(s.w, escapeControls(out)); err != nil {
		return 0, err
	}
	return len(b), nil
}
