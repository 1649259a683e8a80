//go:build unix

package bundle

import (
	"errors"
	"os"
	"syscall"
)

// mapFile maps n bytes of f at off read-only and returns the mapping (to
// pass to unmapFile) and the n bytes. A range past the file's end is
// refused (touching it would fault): callers then read, and report the
// short file as a read does.
func mapFile(f *os.File, off, n int64) (whole, b []byte, err error) {
	if noMapping {
		return nil, nil, errors.New("mappings disabled")
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if off < 0 || n <= 0 || off+n > fi.Size() {
		return nil, nil, errors.New("range not inside the file")
	}
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	// Control keeps the descriptor from being closed (and its number
	// reused) while it is mapped.
	cerr := sc.Control(func(fd uintptr) {
		whole, err = syscall.Mmap(int(fd), start, int(off-start+n), syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if cerr != nil {
		return nil, nil, cerr
	}
	if err != nil {
		return nil, nil, err
	}
	return whole, whole[off-start:], nil
}

func unmapFile(whole []byte) { _ = syscall.Munmap(whole) }
