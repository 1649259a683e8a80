package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
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

func (f *sizeFlag) String() string { return graph.FormatBytes(int64(*f)) }
func (f *sizeFlag) Type() string   { return "size" }

// declareMaxMemory declares --max-memory (default 8GiB) on fs: the one
// spelling of the flag and its help in every command that bounds its
// memory. What is estimated against SIZE differs by command, so each
// command's Help says it.
func declareMaxMemory(fs *pflag.FlagSet, f *sizeFlag) {
	*f = 8 << 30
	fs.Var(f, "max-memory", "refuse (exit 1) when the work the command's help names needs more heap than SIZE by its estimate, made before the work starts, e.g. 512MiB, 8GiB")
}

// declareMaxWork declares --max-work on fs: the one spelling of the flag
// and its help in verify and rewrite (for --verify). checkMaxWork checks
// the value.
func declareMaxWork(fs *pflag.FlagSet, n *int64) {
	fs.Int64Var(n, "max-work", interp.DefaultMaxWork, fmt.Sprintf("refuse (exit 1) a decode step of either graph that does more work than N units (an op counts %d plus its elements; loops and calls included)", interp.OpWork))
}

func checkMaxWork(n int64) error {
	if n < 1 {
		return usagef("--max-work must be at least 1, got %d", n)
	}
	return nil
}
