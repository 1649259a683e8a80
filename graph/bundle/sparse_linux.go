package bundle

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// lseek's SEEK_DATA and SEEK_HOLE on Linux (syscall does not name them).
const (
	seekData = 3
	seekHole = 4
)

// copyContent copies in (a regular file of size bytes) to the empty file
// out keeping its holes: only the ranges SEEK_DATA finds are copied (by
// the kernel, copy_file_range, where it can), and out is extended to size,
// so a sparse 1 GB file stays sparse instead of becoming 1 GB of written
// blocks. A file system that does not answer SEEK_DATA gets a plain copy.
func copyContent(out, in *os.File, size int64, prog *progress) error {
	var off int64
	for off < size {
		data, err := in.Seek(off, seekData)
		if errors.Is(err, syscall.ENXIO) {
			break // only a hole from off to the end
		}
		if err != nil {
			if off == 0 {
				return plainCopy(out, in, prog)
			}
			return err
		}
		hole, err := in.Seek(data, seekHole)
		if err != nil {
			return err
		}
		if hole > size {
			hole = size
		}
		if _, err := out.Seek(data, io.SeekStart); err != nil {
			return err
		}
		if _, err := in.Seek(data, io.SeekStart); err != nil {
			return err
		}
		n, err := io.Copy(out, &io.LimitedReader{R: in, N: hole - data})
		prog.Add(data - off + n)
		if err != nil {
			return err
		}
		if n != hole-data {
			return errors.New("the file shrank while being copied")
		}
		off = hole
	}
	prog.Add(size - off)
	return out.Truncate(size)
}

func plainCopy(out, in *os.File, prog *progress) error {
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(out, in)
	prog.Add(n)
	return err
}
