package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The make_stateful form end to end (issue: "a module as make_stateful
// prints it, with f32 handle states read and written through tokens, is
// inspected, checked, rewritten and verified"): testdata/states/handle-f32.mlir
// is anefix's own module in that form; the shipped armB-handle arm is the
// stand-in hybrid with its four states as handles.
func TestHandleStatesEndToEnd(t *testing.T) {
	cases := []struct {
		name, in  string
		inspect   []string
		check     []string // in the prediction before the rewrite
		rewrite   []string
		minAgree  string
		verifyArg []string
	}{
		{
			name: "make_stateful f32 module",
			in:   "../../testdata/states/handle-f32.mlir",
			inspect: []string{
				`acc    !coreai.handle<tensor<1x4xf32>>  STATE (new value in output "acc")`,
				`cache  !coreai.token  STATE (updates input "cache")`,
				"read_handle 2", "write_handle 2", "create_token 1",
			},
			check: []string{"NOT LEGAL", "coreai.read_handle at states/handle-f32.mlir:10  -> strip-fp32-casts",
				`slice_update writes state "cache" tensor<1x8x4xf32>, then coreai.write_handle stores it`},
			rewrite: []string{
				"@main input acc: !coreai.handle<tensor<1x4xf32>> → !coreai.handle<tensor<1x4xf16>>",
				"@main input cache: !coreai.handle<tensor<1x8x4xf32>> → !coreai.handle<tensor<1x8x4xf16>>",
				"x1 island(s) from coreai.read_handle at states/handle-f32.mlir:10: 11 value(s) retyped, 0 f16↔f32 cast(s) each\n",
			},
			verifyArg: []string{"--streams", "2", "--length", "7"},
			minAgree:  "gate: passed",
		},
		{
			// The same model in the custom form make_stateful prints, with
			// #debuginfo.location op locations (op ids are the FX names).
			name: "make_stateful custom form",
			in:   "../../testdata/states/make-stateful.mlir",
			inspect: []string{
				`acc    !coreai.handle<tensor<1x4xf32>>  STATE (new value in output "acc")`,
				"read_handle 2", "write_handle 2", "create_token 1",
			},
			check: []string{"coreai.read_handle at work/cache_model.py:21  -> strip-fp32-casts", "b_acc: opens a f32 chain",
				`slice_update: slice_update writes state "cache" tensor<1x8x4xf32>, then coreai.write_handle stores it`},
			rewrite: []string{
				"@main input cache: !coreai.handle<tensor<1x8x4xf32>> → !coreai.handle<tensor<1x8x4xf16>>",
				"first ops b_acc\n",
			},
			verifyArg: []string{"--streams", "2", "--length", "7"},
			minAgree:  "gate: passed",
		},
		{
			name: "shipped arm B in the handle form",
			in:   "../../testdata/synth/armB-handle.aimodel",
			inspect: []string{
				`rec_state     !coreai.handle<tensor<3x1x2x8x8xf16>>  STATE (new value in output "rec_state")`,
				"read_handle 4", "write_handle 4",
			},
			check:     []string{"x18   coreai.cast at macos/qwen3_5.py:199"},
			rewrite:   []string{"3 fp32 island(s) retyped to f16", "x3 island(s) from coreai.cast at macos/qwen3_5.py:199"},
			verifyArg: []string{"--streams", "2", "--length", "6"},
			minAgree:  "gate: passed",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "fixed"+filepath.Ext(c.in))
			steps := []struct {
				args []string
				code int
				want []string
			}{
				{[]string{"inspect", c.in}, 0, c.inspect},
				{[]string{"check", c.in}, 3, c.check},
				{[]string{"rewrite", c.in, "-o", out}, 0, c.rewrite},
				{[]string{"check", out}, 0, []string{"Prediction: LEGAL"}},
				{append([]string{"verify", c.in, out}, c.verifyArg...), 0, []string{c.minAgree}},
			}
			for _, s := range steps {
				code, stdout, stderr := runCLI(t, "", s.args...)
				if code != s.code {
					t.Fatalf("%s: exit %d, want %d\n%s%s", strings.Join(s.args, " "), code, s.code, stdout, stderr)
				}
				for _, w := range s.want {
					if !strings.Contains(stdout+stderr, w) {
						t.Errorf("%s: output lacks %q:\n%s%s", s.args[0], w, stdout, stderr)
					}
				}
			}
		})
	}
}
