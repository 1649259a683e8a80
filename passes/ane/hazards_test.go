package ane

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

func loadHazardModule(t *testing.T, name string) *graph.Module {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "hazards", name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := mlirtext.Parse(path, string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	passes.MarkAbsentWeights(m)
	if err := graph.Verify(m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// verdictOf is what the legality verdict consists of: the hazard rules must
// leave every part of it as it is without them.
func verdictOf(r *Report) []string {
	reg, fns := r.Regions()
	out := []string{strings.Repeat("L", btoi(r.Legal())), string(rune('0' + reg)), string(rune('0' + fns))}
	for _, g := range r.Graphs {
		out = append(out, g.Name, string(rune('0'+btoi(g.Blocked))), string(rune('0'+g.Segments)))
		for _, v := range g.Verdicts {
			out = append(out, v.Verdict.String()+":"+strings.Join(v.Rules, ","))
		}
		out = append(out, summary(g.Findings)...)
		out = append(out, summary(g.Suspects)...)
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestHazards(t *testing.T) {
	type want struct {
		rule, opID string
		detail     []string // substrings of the detail
	}
	cases := []struct {
		file  string
		want  []want
		notes []string
	}{
		{"mask_neg_inf.mlir", []want{{"fp16.out-of-range", "causal_mask", []string{"op_id 1:", "1 × -inf", "range [-inf, 0] over 4", "used by add_mask (op_id 2)"}}}, nil},
		{"mask_neg_1e9.mlir", []want{{"fp16.out-of-range", "causal_mask", []string{"op_id 1:", "first -1e+09", "1 of them round to ±inf"}}}, nil},
		{"flush_to_zero.mlir", []want{{"fp16.flush-to-zero", "eps", []string{"op_id 1:", "1 nonzero value(s) round to 0", "first 1e-09"}}}, nil},
		{"exp_bounded.mlir", []want{{"fp16.exp-overflow", "exp", []string{"op_id 5:", "input range [-4, 12]", "exp(12) = 162755"}}}, nil},
		{"resource_blob.mlir", []want{
			{"fp16.out-of-range", "mask", []string{"dense_resource<mask_f32>", "first -1e+09"}},
			{"fp16.flush-to-zero", "mask", []string{"dense_resource<mask_f32>", "first 1e-09"}},
		}, []string{"dense_resource<absent_weights>", "its bytes are not in the file"}},
		{"blocked_neg_inf.mlir", []want{{"fp16.out-of-range", "causal_mask", []string{"1 × -inf", "used by add_mask"}}}, nil},
		{"safe.mlir", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			m := loadHazardModule(t, tc.file)
			rep, err := Check(m)
			if err != nil {
				t.Fatal(err)
			}
			hz := rep.AllHazards()
			if len(hz) != len(tc.want) {
				for _, f := range hz {
					t.Logf("got %s %s: %s", f.Rule.ID, f.OpID, f.Detail)
				}
				t.Fatalf("%d hazard(s), want %d", len(hz), len(tc.want))
			}
			for i, w := range tc.want {
				f := hz[i]
				if f.Rule.ID != w.rule || f.OpID != w.opID || f.Rule.Severity != hazard {
					t.Errorf("hazard %d: %s at %q (%s), want %s at %q", i, f.Rule.ID, f.OpID, f.Rule.Severity, w.rule, w.opID)
				}
				for _, d := range w.detail {
					if !strings.Contains(f.Detail, d) {
						t.Errorf("hazard %d detail %q lacks %q", i, f.Detail, d)
					}
				}
			}
			notes := strings.Join(rep.HazardNotes, "\n")
			for _, n := range tc.notes {
				if !strings.Contains(notes, n) {
					t.Errorf("notes %q lack %q", notes, n)
				}
			}
			if len(tc.notes) == 0 && len(rep.HazardNotes) > 0 {
				t.Errorf("unexpected notes %q", rep.HazardNotes)
			}
			for _, f := range append(rep.AllFindings(), rep.AllSuspects()...) {
				if f.Rule.Severity == hazard {
					t.Errorf("hazard %s among the legality findings", f.Rule.ID)
				}
			}
			off, err := CheckWith(m, Options{NoHazards: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(off.AllHazards()) != 0 {
				t.Fatalf("hazards off still reported %d", len(off.AllHazards()))
			}
			if a, b := verdictOf(rep), verdictOf(off); !reflect.DeepEqual(a, b) {
				t.Errorf("hazard rules changed the verdict:\n with: %q\n without: %q", a, b)
			}
			nb, err := CheckWith(m, Options{NoHazardBlobs: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range nb.AllHazards() {
				if strings.Contains(f.Detail, "dense_resource<") {
					t.Errorf("NoHazardBlobs read a blob: %s", f.Detail)
				}
			}
			if a, b := verdictOf(nb), verdictOf(off); !reflect.DeepEqual(a, b) {
				t.Errorf("NoHazardBlobs changed the verdict")
			}
		})
	}
}

// TestHazardBounds checks the interval reasoning behind fp16.exp-overflow on
// the edges: just below and above ln(65504), and inputs it must not bound.
func TestHazardBounds(t *testing.T) {
	cases := []struct {
		name, body string
		want       bool
	}{
		{"const 11.0", `%0 = coreai.constant dense<1.100000e+01> : tensor<f32>
    %1 = coreai.exp %0 : (tensor<f32>) -> tensor<f32>`, false},
		{"const 11.1", `%0 = coreai.constant dense<1.110000e+01> : tensor<f32>
    %1 = coreai.exp %0 : (tensor<f32>) -> tensor<f32>`, true},
		{"input", `%1 = coreai.exp %arg0 : (tensor<f32>) -> tensor<f32>`, false},
		{"min above", `%0 = coreai.constant dense<2.000000e+01> : tensor<f32>
    %2 = coreai.decomposable.broadcasting_minimum %arg0, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %1 = coreai.exp %2 : (tensor<f32>) -> tensor<f32>`, true},
		{"max only", `%0 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %2 = coreai.decomposable.broadcasting_maximum %arg0, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %1 = coreai.exp %2 : (tensor<f32>) -> tensor<f32>`, false}, // unbounded above: nothing is proven
		{"max above", `%0 = coreai.constant dense<1.200000e+01> : tensor<f32>
    %2 = coreai.decomposable.broadcasting_maximum %arg0, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %1 = coreai.exp %2 : (tensor<f32>) -> tensor<f32>`, true}, // every element ≥ 12
		{"clamp below", `%0 = coreai.constant dense<1.000000e+01> : tensor<f32>
    %3 = coreai.constant dense<-1.000000e+01> : tensor<f32>
    %4 = coreai.decomposable.broadcasting_maximum %arg0, %3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %2 = coreai.decomposable.broadcasting_minimum %4, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %5 = coreai.decomposable.broadcasting_add %2, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %1 = coreai.exp %5 : (tensor<f32>) -> tensor<f32>`, true}, // min(x,10)+10 ≤ 20
		{"mul open", `%0 = coreai.constant dense<1.000000e+01> : tensor<f32>
    %2 = coreai.decomposable.broadcasting_minimum %arg0, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %3 = coreai.decomposable.broadcasting_mul %2, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %1 = coreai.exp %3 : (tensor<f32>) -> tensor<f32>`, false}, // x·10 with x unbounded below: no upper bound
		{"add of input", `%0 = coreai.constant dense<2.000000e+01> : tensor<f32>
    %2 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %1 = coreai.exp %2 : (tensor<f32>) -> tensor<f32>`, false},
		{"sub of consts", `%0 = coreai.constant dense<2.000000e+01> : tensor<f32>
    %3 = coreai.constant dense<[5.000000e+00, 9.500000e+00]> : tensor<2xf32>
    %2 = coreai.decomposable.broadcasting_sub %0, %3 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = coreai.exp %2 : (tensor<2xf32>) -> tensor<2xf32>`, true},
		{"sub of consts safe", `%0 = coreai.constant dense<2.000000e+01> : tensor<f32>
    %3 = coreai.constant dense<[9.000000e+00, 9.500000e+00]> : tensor<2xf32>
    %2 = coreai.decomposable.broadcasting_sub %0, %3 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = coreai.exp %2 : (tensor<2xf32>) -> tensor<2xf32>`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := "module {\n  coreai.graph @main(%arg0: tensor<f32> {coreai.name = \"x\"}) -> (tensor<f32> {coreai.name = \"y\"}) {\n    " +
				tc.body + "\n    coreai.output %arg0 : tensor<f32>\n  }\n}\n"
			m, _, err := mlirtext.Parse("bounds.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(m)
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, f := range rep.AllHazards() {
				if f.Rule == hazardExp {
					got = true
				}
			}
			if got != tc.want {
				t.Errorf("exp-overflow reported %v, want %v (%v)", got, tc.want, rep.AllHazards())
			}
		})
	}
}

// failingBlob reports a size but fails every read, as a truncated or
// unreadable weights file would.
type failingBlob int64

func (b failingBlob) Size() int64 { return int64(b) }
func (b failingBlob) ReadAt(p []byte, off int64) (int, error) {
	return 0, errors.New("input/output error")
}

// TestHazardSkips: blobs the scan cannot read are notes, one per reason,
// never errors and never findings.
func TestHazardSkips(t *testing.T) {
	text := `module {
  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense_resource<w0> : tensor<4xf16>
    %1 = coreai.constant dense_resource<w1> : tensor<4xf16>
    %2 = coreai.constant dense_resource<w2> : tensor<4xf16>
    %3 = coreai.constant dense_resource<bad> : tensor<4xf32>
    %4 = coreai.constant dense_resource<short> : tensor<4xf32>
    %5 = coreai.decomposable.broadcasting_add %0, %1 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %6 = coreai.decomposable.broadcasting_add %5, %2 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    coreai.output %6 : tensor<4xf16>
  }
}
`
	m, _, err := mlirtext.Parse("skips.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	m.AddResource("bad", 4, failingBlob(16))
	m.AddResource("short", 4, graph.MemBlob{0, 0, 0x80, 0xff}) // one -inf, 12 bytes short
	passes.MarkAbsentWeights(m)
	rep, err := Check(m)
	if err != nil {
		t.Fatal(err)
	}
	if hz := rep.AllHazards(); len(hz) != 0 {
		t.Errorf("findings from unreadable blobs: %v", hz)
	}
	want := []string{
		"3 dense_resource blobs skipped: its bytes are not in the file (the first: dense_resource<w0>",
		"dense_resource<bad> (@main: coreai.constant (at skips.mlir:6)) skipped: reading the blob failed; at byte 0: input/output error",
		"dense_resource<short> (@main: coreai.constant (at skips.mlir:7)) skipped: the blob's size does not match its type; the blob holds 4 bytes, tensor<4xf32> needs 16",
	}
	if len(rep.HazardNotes) != len(want) {
		t.Fatalf("notes %q, want %d", rep.HazardNotes, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(rep.HazardNotes[i], w) {
			t.Errorf("note %d = %q, want prefix %q", i, rep.HazardNotes[i], w)
		}
	}
}
