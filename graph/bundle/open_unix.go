//go:build unix

package bundle

import (
	"os"
	"syscall"
)

// openFlags go into every read-only open of an input's file: O_NONBLOCK,
// so that opening a FIFO never waits for a writer (it does nothing to a
// regular file's reads); noFollowFlag refuses a symbolic link at the path
// (O_NOFOLLOW).
const (
	openFlags    = syscall.O_NONBLOCK
	noFollowFlag = syscall.O_NOFOLLOW
)

// openRegular opens p for reading without blocking on a FIFO and, with
// noFollow, without following a symbolic link at p.
func openRegular(p string, noFollow bool) (*os.File, error) {
	flags := os.O_RDONLY | openFlags
	if noFollow {
		flags |= noFollowFlag
	}
	return os.OpenFile(p, flags, 0)
}
