package mlirtext

import (
	"os"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/goldentest"
)

// TestHostileSeeds keeps issue 28's hostile texts in FuzzParse's seed
// corpus, so every `go test` replays them through the fuzz target's checks
// (a positioned error or a print that parses back to itself). Their
// specific outcomes are tested where the behaviour is (TestParseErrors,
// bytecode's TestAlignmentLimit, ...).
func TestHostileSeeds(t *testing.T) {
	for name, text := range hostileTexts {
		goldentest.FuzzSeed(t, "FuzzParse", name, text)
	}
	names, err := os.ReadFile("../../testdata/hostile/names.mlir")
	if err != nil {
		t.Fatal(err)
	}
	goldentest.FuzzSeed(t, "FuzzParse", "hostile_names", string(names))
}

var hostileTexts = map[string]string{
	// Nesting past graph.MaxNesting, as anefix printed it from bytecode
	// before the printer kept the limit: refused with a position.
	"deep_regions_800": strings.Repeat(`"t.r"() ({`+"\n", 800) + `"t.x"() : () -> ()` + strings.Repeat("\n}) : () -> ()", 800) + "\n",
	"deep_arrays_1500": `"t.x"() {a = ` + strings.Repeat("[", 1500) + "1" + strings.Repeat("]", 1500) + "} : () -> ()\n",
	// Blob alignment past graph.MaxBlobAlignment: 2^31 grew past 11 GB.
	"align_2p31": "\"x.a\"() : () -> ()\n{-# dialect_resources: { builtin: { w: \"0x00000080AABB\" } } #-}\n",
	"align_2p17": "\"x.a\"() : () -> ()\n{-# dialect_resources: { builtin: { w: \"0x00000200AABB\" } } #-}\n",
}
