package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph/interp/compare"
)

// sizeFlag is a byte size given as an integer and a binary unit (B, KiB,
// MiB, GiB, TiB) or bare bytes: "512MiB", "8GiB", "1048576". Parsed
// strictly: no spaces, fractions, signs, decimal units or overflow.
type sizeFlag int64

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}, {"B", 0}}

func parseSize(s string) (int64, error) {
	num, shift := s, uint(0)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, shift = strings.TrimSuffix(s, u.suffix), u.shift
			break
		}
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a size: want an integer and a unit B, KiB, MiB, GiB or TiB, such as 512MiB or 8GiB", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q is too large a size", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("%q: a size must be positive", s)
	}
	return n << shift, nil
}

func (f *sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}

func (f *sizeFlag) String() string { return compare.FormatBytes(int64(*f)) }
func (f *sizeFlag) Type() string   { return "size" }
