//go:build !linux

package bundle

import (
	"io"
	"os"
)

// copyContent copies in to out. Holes are kept on Linux only
// (sparse_linux.go); elsewhere a sparse file is copied in full.
func copyContent(out, in *os.File, size int64, prog *progress) error {
	n, err := io.Copy(out, in)
	prog.Add(n)
	return err
}
