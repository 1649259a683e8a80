//go:build !unix

package bundle

import "os"

// No FIFOs or O_NOFOLLOW here: the Lstat before the open and the SameFile
// check after it are what refuse a link (OpenMember's os.Root confines the
// open too).
const (
	openFlags    = 0
	noFollowFlag = 0
)

func openRegular(p string, noFollow bool) (*os.File, error) { return os.Open(p) }
