// Package bigtext writes large synthetic MLIR modules (generic form) for the
// memory tests and benchmarks of the codecs: one op carrying one attribute
// of many integers, or a module of many small ops. They are stand-ins built
// on the fly, not exports; nothing large is kept in the repository.
// `go run ./graph/internal/bigtext/memgen` writes them to files, for
// measuring whole commands against mlir-opt.
package bigtext

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The module kinds. Each attribute kind holds n integers of mixed widths and
// signs; the op kinds hold n ops.
const (
	DenseArray = "array<i64>" // {big = array<i64: v, …>}: a DenseArrayAttr
	ShortArray = "array<i16>" // {big = array<i16: v, …>}: 2 bytes an element, as MLIR stores it
	Dense      = "dense<[]>"  // {big = dense<[v, …]> : tensor<nxi64>}: a DenseElementsAttr literal
	ArrayAttr  = "[i64]"      // {big = [v : i64, …]}: an ArrayAttr of IntegerAttrs
	Ones       = "[1]"        // {big = [1, 1, …]}: issue 28's array of untyped ones (i64), 3 bytes an element
	Ops        = "ops"        // n ops `"t.o"() : () -> ()`, about 20 bytes each
	Chain      = "chain"      // n ops `%k = "t.o"(%k-1) : (i32) -> i32`: values and uses
)

// Kinds lists every kind, attributes first.
var Kinds = []string{DenseArray, ShortArray, Dense, ArrayAttr, Ones, Ops, Chain}

// AttrKinds lists the attribute kinds.
var AttrKinds = []string{DenseArray, ShortArray, Dense, ArrayAttr, Ones}

// value is element i of an attribute: mixed widths and signs, not sorted.
func value(i int) int { return (i*7919)%1000003 - 500000 }

// Write writes the module of the given kind with n elements or ops.
func Write(w io.Writer, kind string, n int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var num []byte
	list := func(sep, suffix string) {
		for i := range n {
			if i > 0 {
				bw.WriteString(sep)
			}
			v := value(i)
			if kind == ShortArray {
				v %= 30000
			}
			num = strconv.AppendInt(num[:0], int64(v), 10)
			bw.Write(num)
			bw.WriteString(suffix)
		}
	}
	bw.WriteString("\"builtin.module\"() ({\n")
	switch kind {
	case DenseArray:
		bw.WriteString("  \"t.op\"() {big = array<i64: ")
		list(", ", "")
		bw.WriteString(">} : () -> ()\n")
	case ShortArray:
		bw.WriteString("  \"t.op\"() {big = array<i16: ")
		list(", ", "")
		bw.WriteString(">} : () -> ()\n")
	case Dense:
		bw.WriteString("  \"t.op\"() {big = dense<[")
		list(", ", "")
		fmt.Fprintf(bw, "]> : tensor<%dxi64>} : () -> ()\n", n)
	case ArrayAttr:
		bw.WriteString("  \"t.op\"() {big = [")
		list(", ", " : i64")
		bw.WriteString("]} : () -> ()\n")
	case Ones:
		bw.WriteString("  \"t.op\"() {big = [")
		for i := range n {
			if i > 0 {
				bw.WriteString(", ")
			}
			bw.WriteByte('1')
		}
		bw.WriteString("]} : () -> ()\n")
	case Ops:
		for range n {
			bw.WriteString("  \"t.o\"() : () -> ()\n")
		}
	case Chain:
		if n > 0 {
			bw.WriteString("  %0 = \"t.c\"() : () -> i32\n")
		}
		for i := 1; i < n; i++ {
			fmt.Fprintf(bw, "  %%%d = \"t.o\"(%%%d) : (i32) -> i32\n", i, i-1)
		}
	default:
		return fmt.Errorf("bigtext: unknown kind %q (want one of %s)", kind, strings.Join(Kinds, ", "))
	}
	bw.WriteString("}) : () -> ()\n")
	return bw.Flush()
}

// Text returns the module of the given kind as a string; it panics on an
// unknown kind (a test's mistake).
func Text(kind string, n int) string {
	var b strings.Builder
	if err := Write(&b, kind, n); err != nil {
		panic(err)
	}
	return b.String()
}
