//go:build !unix

package bundle

import "os"

// openRegular: without O_NOFOLLOW the Lstat before the open and the
// SameFile check after it are what refuse a link.
func openRegular(p string, noFollow bool) (*os.File, error) { return os.Open(p) }
