package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// statefulStandIn copies testdata/compiled/stateful-stand-in.h18p.aimodelc
// (a STAND-IN, testdata/compiled/README.md) into a temporary directory,
// with its manifest in the given form ("xml", "binary", "openstep").
func statefulStandIn(t *testing.T, form string) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in.h18p.aimodelc")
	dst := filepath.Join(t.TempDir(), "s.h18p.aimodelc")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if form != "xml" {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in-manifest."+form+".plist"))
		if err != nil {
			t.Fatal(err)
		}
		man := filepath.Join(dst, "main-h18p-delegates", "MPSGraph", "mpsExecutable.mpsgraphpackage", "manifest.plist")
		os.Chmod(man, 0o644)
		if err := os.WriteFile(man, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// inspect says which inputs of a compiled function are states where the
// package says so (the manifest's mps.stateInputIndices), with their types
// from the specialized graph, in text and --json, whatever the manifest's
// form. Before, the manifest's dictionaries made the delegate unknown: no
// entry function was printed.
func TestInspectStates(t *testing.T) {
	for _, form := range []string{"xml", "binary", "openstep"} {
		t.Run(form, func(t *testing.T) {
			dir := statefulStandIn(t, form)
			code, text, errs := runCLI(t, "", "inspect", dir)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, want := range []string{
				"entry function decode_stand_in (@decode_stand_in_0 in ",
				"  states:        inputs 0 (tensor<1x8x16xf16>), 1 (tensor<1x8x4xf16>)\n",
				"<- main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/manifest.plist: Entry Function Attributes of decode_stand_in_0: mps.stateInputIndices = [0, 1]\n",
				"  token results: 1, 2 (mps.tokenResIndices)\n",
				"  attributes:    mps.aneAlignedIO, mps.disablePreAllocate, mps.stateInputIndices = [0, 1], mps.tokenResIndices = [1, 2]\n",
				"GPU regions:   1",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "unknowns and problems") {
				t.Errorf("problems reported:\n%s", text)
			}
			code, out, errs := runCLI(t, "", "inspect", dir, "--json")
			if code != exitOK {
				t.Fatalf("--json: exit %d: %s", code, errs)
			}
			var rep struct {
				Compiled struct {
					Functions []struct {
						StateInputs []struct {
							Index *int   `json:"index"`
							Type  string `json:"type"`
						} `json:"stateInputs"`
						TokenResults     []int    `json:"tokenResults"`
						ValuedAttributes []string `json:"valuedAttributes"`
					} `json:"functions"`
				} `json:"compiled"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			fs := rep.Compiled.Functions
			if len(fs) != 1 || len(fs[0].StateInputs) != 2 || fs[0].StateInputs[0].Index == nil || *fs[0].StateInputs[0].Index != 0 ||
				fs[0].StateInputs[1].Type != "tensor<1x8x4xf16>" || len(fs[0].TokenResults) != 2 || len(fs[0].ValuedAttributes) != 2 {
				t.Errorf("--json: %s", out)
			}
		})
	}
}

// --max-memory bounds inspect and convert of a compiled package as it
// bounds verify: past it, exit 1 before the file is read, naming the file
// and the estimate; for other inputs the flag is a usage error. Before, the
// flag did not exist (exit 2 for both).
func TestCompiledMaxMemory(t *testing.T) {
	dir := statefulStandIn(t, "xml")
	out := filepath.Join(t.TempDir(), "copy.h18p.aimodelc")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"inspect", dir, "--max-memory", "1KiB"}, exitFailure, "reading metadata.json needs an estimated 5.9 KiB of heap by the package reader's estimates"},
		{[]string{"inspect", dir, "--max-memory", "1KiB", "--json"}, exitFailure, "over the limit of 1.0 KiB (--max-memory)"},
		{[]string{"inspect", dir, "--max-memory", "16KiB"}, exitFailure, "reading main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/specialized_model_1.mpsgraph needs an estimated"},
		{[]string{"inspect", dir, "--max-memory", "1MiB"}, exitOK, ""},
		{[]string{"inspect", dir}, exitOK, ""},
		{[]string{"convert", dir, "-o", out, "--max-memory", "1KiB"}, exitFailure, "(--max-memory)"},
		{[]string{"inspect", armAPath, "--max-memory", "1GiB"}, exitUsage, "--max-memory applies to a compiled package"},
		{[]string{"convert", armAPath, "-o", filepath.Join(t.TempDir(), "x.mlir"), "--max-memory", "1GiB"}, exitUsage, "--max-memory applies to a compiled package"},
		{[]string{"inspect", dir, "--max-memory", "8GB"}, exitUsage, "--max-memory"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errs)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused convert left %s: %v", out, err)
	}
}
