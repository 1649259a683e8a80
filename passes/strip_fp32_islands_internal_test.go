package passes

import (
	"strings"
	"testing"
)

// normModule is a graph with one f32 island between casts whose body is
// body (reading %0, the f32 copy of %x, writing %r).
func normModule(body string) string {
	return `module {
  coreai.graph @main(%x: tensor<1x4xf16>) -> tensor<1x4xf16> {
    %ax = coreai.constant dense<1> : tensor<1xsi32>
    %eps = coreai.constant dense<1.0e-06> : tensor<f32>
    %0 = coreai.cast %x : tensor<1x4xf16> to tensor<1x4xf32>
` + body + `
    %out = coreai.cast %r : tensor<1x4xf32> to tensor<1x4xf16>
    coreai.output %out : tensor<1x4xf16>
  }
}`
}

// TestIslandIsNorm: islands=norms takes a normalization chain by its
// structure (reduction of a square → rsqrt → multiply, or → sqrt → divide)
// and nothing that only resembles one.
func TestIslandIsNorm(t *testing.T) {
	cases := []struct {
		name string
		body string
		norm bool
	}{
		{"RMSNorm: mean of x·x, rsqrt, multiply", `
    %1 = coreai.decomposable.broadcasting_mul %0, %0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = coreai.reduce_mean %1, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %3 = coreai.decomposable.broadcasting_add %2, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
    %4 = coreai.rsqrt %3 : tensor<1x1xf32> -> tensor<1x1xf32>
    %r = coreai.decomposable.broadcasting_mul %0, %4 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>`, true},
		{"L2 norm: sum of square, rsqrt, multiply", `
    %1 = coreai.square %0 : tensor<1x4xf32> -> tensor<1x4xf32>
    %2 = coreai.reduce_sum %1, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %4 = coreai.rsqrt %2 : tensor<1x1xf32> -> tensor<1x1xf32>
    %r = coreai.decomposable.broadcasting_mul %0, %4 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>`, true},
		{"sqrt then divide", `
    %1 = coreai.decomposable.broadcasting_mul %0, %0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = coreai.reduce_mean %1, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %4 = coreai.sqrt %2 : tensor<1x1xf32> -> tensor<1x1xf32>
    %r = coreai.decomposable.broadcasting_divide %0, %4 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>`, true},
		{"sqrt then multiply is not a norm", `
    %1 = coreai.decomposable.broadcasting_mul %0, %0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = coreai.reduce_mean %1, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %4 = coreai.sqrt %2 : tensor<1x1xf32> -> tensor<1x1xf32>
    %r = coreai.decomposable.broadcasting_mul %0, %4 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>`, false},
		{"mean of a product of two values (not a square)", `
    %e = coreai.exp %0 : tensor<1x4xf32> -> tensor<1x4xf32>
    %1 = coreai.decomposable.broadcasting_mul %0, %e : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = coreai.reduce_mean %1, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %4 = coreai.rsqrt %2 : tensor<1x1xf32> -> tensor<1x1xf32>
    %r = coreai.decomposable.broadcasting_mul %0, %4 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>`, false},
		{"softmax-like sum of exp", `
    %e = coreai.exp %0 : tensor<1x4xf32> -> tensor<1x4xf32>
    %2 = coreai.reduce_sum %e, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %r = coreai.decomposable.broadcasting_mul %e, %2 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>`, false},
		{"square reduced but no rsqrt", `
    %1 = coreai.decomposable.broadcasting_mul %0, %0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = coreai.reduce_mean %1, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %r = coreai.decomposable.broadcasting_mul %0, %2 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, sel := range []string{"norms", "all"} {
				m := ptParse(t, normModule(tc.body))
				res, err := ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}, Set: []string{"strip-fp32-casts.islands=" + sel}})
				if err != nil {
					t.Fatal(err)
				}
				retyped := !strings.Contains(ptPrint(t, m), "coreai.cast") // its two casts go when it is retyped
				if want := tc.norm || sel == "all"; retyped != want {
					t.Errorf("islands=%s: retyped = %v, want %v; notes %q", sel, retyped, want, res.Steps[0].Change.Notes)
				}
			}
		})
	}
}

// TestIslandSelectorUsage: an empty selection is a usage error, and
// islands=norms with keep-norms=true contradicts itself.
func TestIslandSelectorUsage(t *testing.T) {
	if _, err := Build(Spec{Passes: []string{"strip-fp32-casts"}, Set: []string{"strip-fp32-casts.islands="}}); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), "want all, blockers, norms or glob patterns") {
		t.Errorf("empty islands: err = %v", err)
	}
	m := ptParse(t, normModule(`    %r = coreai.exp %0 : tensor<1x4xf32> -> tensor<1x4xf32>`))
	_, err := ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}, Set: []string{"strip-fp32-casts.islands=norms", "strip-fp32-casts.keep-norms=true"}})
	if err == nil || !strings.Contains(err.Error(), "drop one of the two") {
		t.Errorf("norms with keep-norms: err = %v", err)
	}
}

// TestDefaultLeavesUnflaggedIslands: an island between casts that neither
// holds a graph port nor round-trips a buffer is no element-type blocker,
// so the default leaves it in f32 and says so.
func TestDefaultLeavesUnflaggedIslands(t *testing.T) {
	m := ptParse(t, normModule(`    %r = coreai.exp %0 : tensor<1x4xf32> -> tensor<1x4xf32>`))
	res, err := ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ptPrint(t, m), "coreai.cast") {
		t.Error("the default retyped an island check does not flag")
	}
	if notes := strings.Join(res.Steps[0].Change.Notes, "\n"); !strings.Contains(notes, "1 fp32 island(s) left in f32: not selected by islands=blockers") {
		t.Errorf("notes: %s", notes)
	}
}
