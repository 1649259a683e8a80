package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// standInForConnector is a stand-in source model (written here, NOT the
// VibeVoice connector's export, which is not on record): a graph @main
// whose ops carry FX names the real connector package's GPU region carries
// (addmm, mul_1, view) and one it does not (not_compiled).
const standInForConnector = `module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "y"}) {
    %c = coreai.constant dense<1.0> : tensor<1x4xf16> loc("view")
    %0 = coreai.neg %x : tensor<1x4xf16> -> tensor<1x4xf16> loc("addmm")
    %1 = coreai.neg %0 : tensor<1x4xf16> -> tensor<1x4xf16> loc("mul_1")
    %2 = coreai.neg %1 : tensor<1x4xf16> -> tensor<1x4xf16> loc("not_compiled")
    coreai.output %2 : tensor<1x4xf16>
  }
}
`

// check --compiled: the real connector package (GPU-placed: one GPU
// region, no ANE region, the corpus README) measured beside the prediction,
// per function, and per op by FX name: the names its region carries are on
// the GPU, the others (and constants) have no measurement.
func TestCheckCompiledMeasured(t *testing.T) {
	var pkg string
	for _, d := range compiledCorpus(t) {
		if strings.Contains(d, "connector") {
			pkg = d
		}
	}
	if pkg == "" {
		t.Fatal("no connector package in the corpus")
	}
	in := filepath.Join(t.TempDir(), "stand-in.mlir")
	if err := os.WriteFile(in, []byte(standInForConnector), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "check", in, "--ops", "--json", "--compiled", pkg)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Compiled string
		Graphs   []struct {
			Name                                   string
			MeasuredAneRegions, MeasuredGpuRegions *int32
		}
		Ops []struct {
			OpID           string `json:"opId"`
			MeasuredDevice *string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Compiled != pkg || len(r.Graphs) != 1 || deref(r.Graphs[0].MeasuredAneRegions) != int32(0) || deref(r.Graphs[0].MeasuredGpuRegions) != int32(1) {
		t.Errorf("per function: %+v", r)
	}
	want := map[string]string{"addmm": "gpu", "mul_1": "gpu", "not_compiled": "", "view": ""}
	for _, o := range r.Ops {
		w, ok := want[o.OpID]
		if !ok {
			continue
		}
		delete(want, o.OpID)
		got := ""
		if o.MeasuredDevice != nil {
			got = *o.MeasuredDevice
		}
		if got != w {
			t.Errorf("%s: measured %q, want %q", o.OpID, got, w)
		}
	}
	if len(want) != 0 {
		t.Errorf("ops missing: %v", want)
	}
	_, text, _ := runCLI(t, "", "check", in, "--ops", "--compiled", pkg)
	for _, s := range []string{"measured: 0 ANE region(s), 1 GPU region(s)", "[measured: gpu]"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	if code, _, errs := runCLI(t, "", "check", in, "--compiled", pkg, "--architecture", "h16g"); code != exitUsage || !strings.Contains(errs, "compiled for h18p") {
		t.Errorf("--architecture h16g with an h18p package: exit %d, %q", code, errs)
	}
	if code, _, _ := runCLI(t, "", "check", in, "--compiled", in); code != exitUsage {
		t.Errorf("--compiled on a .mlir: exit %d", code)
	}
}
