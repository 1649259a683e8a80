package mlirtext

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

var ssaName = regexp.MustCompile(`%([A-Za-z_$.][A-Za-z0-9_$.-]*|[0-9]+)`)

// hybridModel replicates the main body of the hand-written hybrid layer:
// `layers` layers of `blocks` chained copies each (outputs feed the next
// copy's hidden/conv/rec inputs), weights as per-layer dense_resource blobs.
func hybridModel(t testing.TB, layers, blocks int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, "pretty", "hybrid_layer.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	lines := strings.Split(src, "\n")
	var head, body, tail []string
	state := 0
	for _, l := range lines {
		switch {
		case state == 0:
			head = append(head, l)
			if strings.HasSuffix(l, `{coreai.name = "rec_state"}) {`) {
				state = 1
			}
		case state == 1 && strings.Contains(l, "coreai.output"):
			state = 2
		case state == 1:
			body = append(body, l)
		case state == 2 && strings.HasPrefix(l, "  } loc(\"main\")"):
			tail = append(tail, l)
			state = 3
		case state == 3:
			if strings.HasPrefix(l, "{-#") {
				state = 4
				continue
			}
			tail = append(tail, l)
		}
	}
	var sb strings.Builder
	sb.WriteString(strings.Join(head, "\n") + "\n")
	prev := [3]string{"%arg0", "%arg1", "%arg2"}
	for l := 0; l < layers; l++ {
		for k := 0; k < blocks; k++ {
			sfx := fmt.Sprintf("_%d_%d", l, k)
			for _, line := range body {
				line = ssaName.ReplaceAllStringFunc(line, func(s string) string {
					switch s {
					case "%arg0":
						return prev[0]
					case "%arg1":
						return prev[1]
					case "%arg2":
						return prev[2]
					}
					return s + sfx
				})
				line = strings.ReplaceAll(line, "dense_resource<layer0_", fmt.Sprintf("dense_resource<layer%d_", l))
				sb.WriteString(line + "\n")
			}
			prev = [3]string{"%out" + sfx, "%conv_new" + sfx, "%s16" + sfx}
		}
	}
	fmt.Fprintf(&sb, "    coreai.output %s, %s, %s : tensor<1x8xf16>, tensor<1x12x3xf16>, tensor<1x2x2x2xf16> loc(\"output\")\n", prev[0], prev[1], prev[2])
	sb.WriteString(strings.Join(tail, "\n") + "\n")
	sb.WriteString("{-#\n  dialect_resources: {\n    builtin: {\n")
	sizes := map[string]int{"input_norm": 8, "in_proj_qkv": 96, "conv1d": 48, "in_proj_b": 16, "in_proj_a": 16, "out_proj": 32}
	names := []string{"input_norm", "in_proj_qkv", "conv1d", "in_proj_b", "in_proj_a", "out_proj"}
	for l := 0; l < layers; l++ {
		for i, n := range names {
			if l > 0 || i > 0 {
				sb.WriteString(",\n")
			}
			fmt.Fprintf(&sb, "      layer%d_%s: \"0x02000000%s\"", l, n, strings.Repeat("003C", sizes[n]))
		}
	}
	sb.WriteString("\n    }\n  }\n#-}\n")
	return sb.String()
}

// TestHybridModelGenerator keeps the benchmark input honest: it parses,
// verifies and has the intended size.
func TestHybridModelGenerator(t *testing.T) {
	text := hybridModel(t, 2, 3)
	m, _, err := Parse("hybrid24.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatal(err)
	}
	if n := m.Graph("main").Body().Len(); n != 2*3*69+1 {
		t.Errorf("main has %d ops, want %d", n, 2*3*69+1)
	}
	if len(m.Resources) != 12 {
		t.Errorf("%d resources, want 12", len(m.Resources))
	}
	// ANEFIX_DUMP_HYBRID24=dir writes the benchmark input in both forms,
	// to time other tools (mlir-opt) on the same IR.
	if dir := os.Getenv("ANEFIX_DUMP_HYBRID24"); dir != "" {
		big := hybridModel(t, 24, 12)
		bm, _, err := Parse("hybrid24.mlir", big)
		if err != nil {
			t.Fatal(err)
		}
		gen, err := Format(bm, FormGeneric)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "hybrid24.pretty.mlir"), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "hybrid24.generic.mlir"), gen, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
