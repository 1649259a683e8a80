//go:build !unix

package bundle

import (
	"errors"
	"os"
)

func mapFile(f *os.File, off, n int64) (whole, b []byte, err error) {
	return nil, nil, errors.New("memory-mapped reading is not supported here")
}

func unmapFile(whole []byte) {}
