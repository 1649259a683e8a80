//go:build linux && (amd64 || arm64)

package bundle

import (
	"syscall"
	"unsafe"
)

// renameExchange swaps a and b atomically (renameat2 RENAME_EXCHANGE,
// Linux 3.15+), so that b names the complete old or the complete new output
// at every moment, even under SIGKILL. ok is false when the kernel or file
// system does not support it (ENOSYS, EINVAL); the caller falls back.
func renameExchange(a, b string) (ok bool, err error) {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return false, err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return false, err
	}
	const atFDCWD = -100
	const renameExchange = 1 << 1
	fd := atFDCWD
	_, _, e := syscall.Syscall6(sysRenameat2, uintptr(fd), uintptr(unsafe.Pointer(pa)), uintptr(fd), uintptr(unsafe.Pointer(pb)), renameExchange, 0)
	switch e {
	case 0:
		return true, nil
	case syscall.ENOSYS, syscall.EINVAL, syscall.EOPNOTSUPP:
		return false, nil
	}
	return true, e
}
