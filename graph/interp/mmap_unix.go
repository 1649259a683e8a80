//go:build unix

package interp

import (
	"os"
	"syscall"
)

// mapSection maps n bytes of f at off read-only, so a weight is paged in
// from the file when a kernel touches it instead of being copied to the heap.
func mapSection(f *os.File, off, n int64) (data []byte, unmap func() error, err error) {
	if n == 0 {
		return nil, func() error { return nil }, nil
	}
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	m, err := syscall.Mmap(int(f.Fd()), start, int(off-start+n), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return m[off-start : off-start+n], func() error { return syscall.Munmap(m) }, nil
}
