package passes_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// FuzzIOAndArmDPasses runs fold-io-unsqueeze, promote-states and arm-d on
// any text that parses and verifies: no panic, and a pass that succeeds
// leaves the module verifiable. Seeds: testdata/passes and a few regions.
func FuzzIOAndArmDPasses(f *testing.F) {
	files, _ := filepath.Glob("../testdata/passes/*.mlir")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`module {
  coreai.graph @main(%s: tensor<4xf16> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}, %c: tensor<1x4xf16> {coreai.name = "conv_state"}) -> (tensor<4xf16> {coreai.name = "s"}, tensor<1x4xf16> {coreai.name = "conv_state_out"}) {
    %a = coreai.constant dense<0> : tensor<1xsi32>
    %0 = coreai.expand_dims %s, %a : (tensor<4xf16>, tensor<1xsi32>) to tensor<1x4xf16> loc("unsqueeze"("m.py":3:0))
    %1 = coreai.exp %0 : tensor<1x4xf16> -> tensor<1x4xf16> loc(fused["exp"("/x/models/macos/qwen3_5.py":200:0), "/x/models/ios/qwen3_5_ios.py":290:0])
    %2 = coreai.shrink_dims %1, %a : (tensor<1x4xf16>, tensor<1xsi32>) to tensor<4xf16> loc("squeeze"("m.py":4:0))
    coreai.output %2, %c : tensor<4xf16>, tensor<1x4xf16>
  }
}`)
	f.Add(`module {
  coreai.graph @main(%h: !coreai.handle<tensor<4xf16>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}) -> (!coreai.token {coreai.name = "s"}) {
    %t = "coreai.create_token"() : () -> !coreai.token
    %v, %t1 = "coreai.read_handle"(%h, %t) : (!coreai.handle<tensor<4xf16>>, !coreai.token) -> (tensor<4xf16>, !coreai.token)
    %a = coreai.constant dense<0> : tensor<1xsi32>
    %0 = coreai.expand_dims %v, %a : (tensor<4xf16>, tensor<1xsi32>) to tensor<1x4xf16> loc("unsqueeze"("m.py":3:0))
    %1 = coreai.shrink_dims %0, %a : (tensor<1x4xf16>, tensor<1xsi32>) to tensor<4xf16> loc("squeeze"("m.py":4:0))
    %t2 = "coreai.write_handle"(%h, %1, %t1) : (!coreai.handle<tensor<4xf16>>, tensor<4xf16>, !coreai.token) -> !coreai.token
    coreai.output %t2 : !coreai.token
  }
}`)
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := mlirtext.Parse("fuzz.mlir", text)
		if err != nil || graph.Verify(m) != nil {
			return
		}
		for _, name := range []string{"fold-io-unsqueeze", "promote-states", "arm-d"} {
			p, _ := passes.Lookup(name)
			if _, err := p.Run(m, nil); err != nil {
				return // a refusal is fine; it must name the problem (tested elsewhere)
			}
			if err := graph.Verify(m); err != nil {
				t.Fatalf("%s left an unverifiable module: %v\ninput:\n%s", name, err, text)
			}
		}
	})
}
