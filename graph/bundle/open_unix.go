//go:build unix

package bundle

import (
	"os"
	"syscall"
)

// openRegular opens p for reading without blocking on a FIFO (O_NONBLOCK,
// which does nothing to a regular file's reads) and, with noFollow,
// without following a symbolic link at p (O_NOFOLLOW).
func openRegular(p string, noFollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(p, flags, 0)
}
