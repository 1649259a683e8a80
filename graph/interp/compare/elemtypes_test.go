package compare

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
)

// outputElems are the element types the compared output may have: every
// float and integer type the interpreter holds, booleans in both
// spellings.
var outputElems = []string{"f16", "f32", "bf16", "f8E4M3FN", "si32", "ui32", "si64", "si16", "ui16", "si8", "ui8", "i1", "!coreai.bool"}

// outputModule is a graph whose first output has element type el and
// shape shape: the pseudo-random float input x cast to el (via=cast), or
// an input of that type returned as it is (via=input: floats get random
// values, integers and booleans zeros).
func outputModule(t *testing.T, el string, shape []int, via string) *graph.Module {
	t.Helper()
	dims := ""
	for _, d := range shape {
		dims += fmt.Sprintf("%dx", d)
	}
	out := "tensor<" + dims + el + ">"
	in, body := out, "    coreai.output %x : "+out+"\n"
	if via == "cast" {
		in = "tensor<" + dims + "f32>"
		body = "    %0 = coreai.cast %x : " + in + " to " + out + "\n    coreai.output %0 : " + out + "\n"
	}
	src := "module {\n  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = \"input_ids\"}, %x: " + in +
		" {coreai.name = \"x\"}) -> (" + out + " {coreai.name = \"logits\"}) {\n" + body + "  }\n}\n"
	m, _, err := mlirtext.Parse("out.mlir", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return m
}

// TestAnyOutputElementType: verify's comparison runs a graph against
// itself whatever its first output's element type and shape (rank 0 to 4,
// size-1 and size-0 dimensions): no panic (issue 20: argmax sliced an
// integer output's empty float view, "slice bounds out of range [-3:]"),
// full agreement, bit identity, a token inside the row, and a note when
// the output is not float or holds nothing.
func TestAnyOutputElementType(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 5))
	var shapes [][]int
	for rank := 0; rank <= 4; rank++ {
		for k := 0; k < 3; k++ {
			s := make([]int, rank)
			for i := range s {
				s[i] = []int{1, 1, 2, 3, 5}[r.IntN(5)]
			}
			shapes = append(shapes, s)
		}
		if rank > 0 {
			s := make([]int, rank)
			for i := range s {
				s[i] = 2
			}
			s[r.IntN(rank)] = 0 // a size-0 dimension somewhere
			shapes = append(shapes, s)
		}
	}
	for _, el := range outputElems {
		for _, shape := range shapes {
			for _, via := range []string{"cast", "input"} {
				if el == "f32" && via == "cast" {
					continue
				}
				name := fmt.Sprintf("%s/%v/%s", el, shape, via)
				t.Run(name, func(t *testing.T) {
					res, err := Compare(outputModule(t, el, shape, via), outputModule(t, el, shape, via), Options{Steps: 3, Prompt: []int64{1, 2}})
					if err != nil {
						t.Fatalf("error: %v", err)
					}
					// --ranges and --localize read every value too.
					if _, err := Compare(outputModule(t, el, shape, via), outputModule(t, el, shape, via), Options{Steps: 2, Ranges: true, Localize: true}); err != nil {
						t.Fatalf("with ranges and localize: %v", err)
					}
					n := 1
					for _, d := range shape {
						n *= d
					}
					row := 1
					if len(shape) > 0 {
						row = shape[len(shape)-1]
					}
					notes := strings.Join(res.Notes, "\n")
					switch {
					case n == 0:
						if res.N != 0 || res.Agree != 0 || !strings.Contains(notes, "holds no elements") {
							t.Errorf("size 0: %d/%d, notes %q", res.Agree, res.N, notes)
						}
					case res.N != 3 || res.Agree != 3 || !res.Identical:
						t.Errorf("%d/%d identical=%v", res.Agree, res.N, res.Identical)
					}
					for _, st := range res.Steps {
						if n > 0 && (st.RefToken < 0 || st.RefToken >= int64(row)) {
							t.Errorf("step %d: token %d outside a row of %d", st.Index, st.RefToken, row)
						}
					}
					if isFloat := !strings.HasPrefix(el, "s") && !strings.HasPrefix(el, "u") && !strings.HasPrefix(el, "i") && !strings.HasPrefix(el, "!"); !isFloat && n > 0 && !strings.Contains(notes, "argmax of its values") {
						t.Errorf("no note on the %s output: %q", el, notes)
					}
				})
			}
		}
	}
}

// Integer and boolean top-1 is the argmax of the values, the first of
// equal ones.
func TestArgmaxValues(t *testing.T) {
	cases := []struct {
		shape []int
		vals  []float64
		want  int64
		ok    bool
	}{
		{nil, []float64{7}, 0, true},
		{[]int{4}, []float64{0, 1, 1, 0}, 1, true},
		{[]int{2, 3}, []float64{9, 9, 9, -1, 5, 5}, 1, true},
		{[]int{2, 0}, nil, 0, false},
		{[]int{0}, nil, 0, false},
	}
	for _, c := range cases {
		got, ok := argmax(interp.Zeros(interp.SI32, c.shape), c.vals)
		if got != c.want || ok != c.ok {
			t.Errorf("argmax(%v, %v) = %d, %v; want %d, %v", c.shape, c.vals, got, ok, c.want, c.ok)
		}
	}
}

// A graph whose only output is its state's new value (slice_update into
// the input: a state by dataflow, graph/states.go) is compared on that
// output, with a note, instead of refused.
func TestEveryOutputAState(t *testing.T) {
	text := `module {
  coreai.graph @main(%arg0: tensor<2x3xf16> {coreai.name = "buf"}, %arg1: tensor<1x3xf16> {coreai.name = "x"}) -> (tensor<2x3xf16> {coreai.name = "buf_next"}) {
    %b = coreai.constant dense<[1, 0]> : tensor<2xsi32>
    %e = coreai.constant dense<[2, 3]> : tensor<2xsi32>
    %s = coreai.constant dense<1> : tensor<2xsi32>
    %0 = coreai.slice_update %arg0 with %arg1 at (%b, %e, %s) : (tensor<2x3xf16>, tensor<1x3xf16>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<2x3xf16>
    coreai.output %0 : tensor<2x3xf16>
  }
}
`
	m, _, err := mlirtext.Parse("t.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(m, m, Options{Steps: 3, Prompt: []int64{1}})
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	if !res.Identical || len(res.States) != 1 || !strings.Contains(strings.Join(res.Notes, "\n"), "no output besides its states") {
		t.Errorf("identical %v, states %+v, notes %q", res.Identical, res.States, res.Notes)
	}
}
