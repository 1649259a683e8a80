// Command memgen writes one large synthetic module (graph/internal/bigtext)
// to stdout, for measuring whole commands:
//
//	go run ./graph/internal/bigtext/memgen -kind ops -n 1000000 > ops.mlir
//	/usr/bin/time -v anefix convert ops.mlir -o ops.mlirb
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/anefix/anefix/graph/internal/bigtext"
)

func main() {
	kind := flag.String("kind", bigtext.DenseArray, "module kind: "+strings.Join(bigtext.Kinds, ", "))
	n := flag.Int("n", 3_500_000, "elements of the attribute, or ops")
	flag.Parse()
	if err := bigtext.Write(os.Stdout, *kind, *n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
