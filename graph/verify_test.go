package graph_test

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

// parse reads MLIR text with the real parser (this external test package
// may import mlirtext; package graph itself cannot).
func parse(t *testing.T, src string) *graph.Module {
	t.Helper()
	m, _, err := mlirtext.Parse("t.mlir", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

// TestVerifyErrors: each module is malformed in one way the parser accepts
// and the verifier must name (the op and what is wrong).
func TestVerifyErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // "" means Verify must accept the module
	}{
		{"well formed", `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.sigmoid %x : tensor<4xf16> -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}`, ""},
		{"output type differs from the signature", `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf32> {
    coreai.output %x : tensor<4xf16>
  }
}`, "operand 0 has type tensor<4xf16> but graph @main declares result 0 as tensor<4xf32>"},
		{"output count differs from the signature", `module {
  coreai.graph @main(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
    coreai.output %x : tensor<4xf16>
  }
}`, "returns 1 values but graph @main declares 2 results"},
		{"block arguments differ from the signature", `module {
  "coreai.graph"() <{function_type = (tensor<4xf16>) -> tensor<4xf16>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    "coreai.output"(%x) : (tensor<4xf32>) -> ()
  }) : () -> ()
}`, "graph @main input 0 is declared tensor<4xf16> but its block argument is tensor<4xf32>"},
		{"block argument count differs", `module {
  "coreai.graph"() <{function_type = (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf16>):
    "coreai.output"(%x) : (tensor<4xf16>) -> ()
  }) : () -> ()
}`, "graph @main declares 2 inputs but its block has 1 arguments"},
		{"no terminator", `module {
  "coreai.graph"() <{function_type = (tensor<4xf16>) -> tensor<4xf16>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf16>):
    %0 = "coreai.sigmoid"(%x) : (tensor<4xf16>) -> tensor<4xf16>
  }) : () -> ()
}`, "graph @main does not end in coreai.output (it ends in coreai.sigmoid"},
		{"no function_type", `module {
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0:
    "coreai.output"() : () -> ()
  }) : () -> ()
}`, "graph has no function_type"},
		{"no sym_name", `module {
  "coreai.graph"() <{function_type = () -> ()}> ({
  ^bb0:
    "coreai.output"() : () -> ()
  }) : () -> ()
}`, "graph has no sym_name"},
		{"terminator in the middle", `module {
  "coreai.graph"() <{function_type = (tensor<4xf16>) -> tensor<4xf16>, sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf16>):
    "coreai.output"(%x) : (tensor<4xf16>) -> ()
    "coreai.output"(%x) : (tensor<4xf16>) -> ()
  }) : () -> ()
}`, "coreai.output in the middle of graph @main"},
		{"undefined callee", `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.invoke @nowhere(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}`, "symbol @nowhere is not defined in the module"},
		{"call with the wrong arity", `module {
  coreai.graph private @f(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.invoke @f(%x, %x) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}`, "calls @f with 2 operands and 1 results, but it takes 1 and returns 1"},
		{"call with the wrong operand type", `module {
  coreai.graph private @f(%x: tensor<4xf32>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf32> to tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.invoke @f(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}`, "operand 0 has type tensor<4xf16>, but @f's input 0 is tensor<4xf32>"},
		{"call with the wrong result type", `module {
  coreai.graph private @f(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf32> {
    %0 = coreai.invoke @f(%x) : (tensor<4xf16>) -> tensor<4xf32>
    coreai.output %0 : tensor<4xf32>
  }
}`, "result 0 has type tensor<4xf32>, but @f's output 0 is tensor<4xf16>"},
		{"call without callee", `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = "coreai.invoke"(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}`, "missing callee symbol reference"},
		{"dense_resource without a blob", `module {
  coreai.graph @main() -> tensor<2xf16> {
    %0 = coreai.constant dense_resource<w> : tensor<2xf16>
    coreai.output %0 : tensor<2xf16>
  }
}`, "dense_resource<w> has no entry in the module's resources"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := graph.Verify(parse(t, c.src))
			if c.want == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Verify accepted the module; want an error containing %q", c.want)
			}
			if !graph.IsVerifyError(err) {
				t.Errorf("error is not a *VerifyError: %T", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestVerifyWritable: the check before every write refuses a referenced
// resource without bytes and a key declared twice, and accepts what
// Verify accepts plus an unreferenced declaration (the one the bytecode
// writer keeps for a blob dce removed).
func TestVerifyWritable(t *testing.T) {
	const src = `module {
  coreai.graph @main(%x: tensor<2xf16>) -> tensor<2xf16> {
    %w = coreai.constant dense_resource<w> : tensor<2xf16>
    %0 = coreai.decomposable.broadcasting_mul %x, %w : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
    coreai.output %0 : tensor<2xf16>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x02000000003C003C"
    }
  }
#-}
`
	decl := func(key string) *graph.Resource {
		return &graph.Resource{Dialect: "builtin", Key: key, Kind: graph.BlobResource, Alignment: 1}
	}
	cases := []struct {
		name string
		edit func(m *graph.Module)
		want string // "" = writable
	}{
		{"complete", func(*graph.Module) {}, ""},
		{"unreferenced declaration", func(m *graph.Module) { m.Resources = append(m.Resources, decl("gone")) }, ""},
		{"referenced key without bytes", func(m *graph.Module) { m.Resources = []*graph.Resource{decl("w")} }, "dense_resource<w> has no data"},
		{"referenced key without entry", func(m *graph.Module) { m.Resources = nil }, "dense_resource<w> has no entry"},
		{"key declared twice", func(m *graph.Module) { m.Resources = append(m.Resources, m.Resources[0]) }, `resource "w" of builtin is declared twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := parse(t, src)
			c.edit(m)
			err := graph.VerifyWritable(m)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if c.name == "referenced key without bytes" && graph.Verify(m) != nil {
				t.Errorf("Verify refuses what only VerifyWritable should: %v", graph.Verify(m))
			}
		})
	}
}
