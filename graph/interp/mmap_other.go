//go:build !unix

package interp

import (
	"errors"
	"os"
)

func mapSection(f *os.File, off, n int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("mmap unavailable")
}
