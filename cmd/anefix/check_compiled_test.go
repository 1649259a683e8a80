package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
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

// check --compiled compares the package's recorded source with the input,
// as inspect --source does: the stand-in package compiled from armA (whose
// sourceHash the stand-in compiler writes as armA's main.mlirb digest)
// matches armA and not armB, whose text report then warns; the real
// connector package (sourceHash from its metadata.json) is not compared
// with MLIR text.
func TestCheckCompiledSource(t *testing.T) {
	pkg := filepath.Join(t.TempDir(), "a.aimodelc")
	compileStandIn(t, pkg)
	armB := filepath.Join("..", "..", "testdata", "synth", "armB.aimodel")
	digest := func(model string) string {
		b, err := os.ReadFile(filepath.Join(model, "main.mlirb"))
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%X", sha256.Sum256(b))
	}
	type source struct {
		SourceHash, InputDigest, Note string
		Compared, Matches             bool
	}
	checkJSON := func(in, pkg string) source {
		t.Helper()
		stdin := ""
		if in == "-" {
			b, err := os.ReadFile(filepath.Join(armAPath, "main.mlirb"))
			if err != nil {
				t.Fatal(err)
			}
			stdin = string(b)
		}
		_, out, errs := runCLI(t, stdin, "check", in, "--json", "--compiled", pkg)
		var r struct{ CompiledSource *source }
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.CompiledSource == nil {
			t.Fatalf("check %s --compiled %s: %v, no compiledSource\n%s%s", in, pkg, err, out, errs)
		}
		return *r.CompiledSource
	}
	if got, want := checkJSON(armAPath, pkg), (source{SourceHash: digest(armAPath), InputDigest: digest(armAPath), Compared: true, Matches: true}); got != want {
		t.Errorf("armA with its own package: %+v, want %+v", got, want)
	}
	got := checkJSON(armB, pkg)
	if !got.Compared || got.Matches || got.SourceHash != digest(armAPath) || got.InputDigest != digest(armB) || !strings.Contains(got.Note, "not compiled from this input") {
		t.Errorf("armB with armA's package: %+v", got)
	}
	_, text, _ := runCLI(t, "", "check", armB, "--compiled", pkg)
	warn := "WARNING: the package's sourceHash " + digest(armAPath) + " is not the SHA-256 of " + armB + "'s main file (" + digest(armB) + ")"
	if !strings.Contains(text, warn) || !strings.Contains(text, "measured regions may not be this input's") {
		t.Errorf("text lacks the warning %q:\n%s", warn, text)
	}
	if _, text, _ := runCLI(t, "", "check", armAPath, "--compiled", pkg); strings.Contains(text, "WARNING") || !strings.Contains(text, "compiled from this input") {
		t.Errorf("armA with its own package:\n%s", text)
	}
	// armA's bytes on stdin: no path to compare, said so.
	if got := checkJSON("-", pkg); got.Compared || got.Matches || got.SourceHash != digest(armAPath) || !strings.Contains(got.Note, "stdin") {
		t.Errorf("armA on stdin: %+v", got)
	}
	// A package that records no sourceHash: nothing to compare, said so.
	if err := os.WriteFile(filepath.Join(pkg, "metadata.json"), []byte(`{"producer": "stand-in"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := checkJSON(armAPath, pkg); got.Compared || got.Matches || got.SourceHash != "" || !strings.Contains(got.Note, "records no sourceHash") {
		t.Errorf("package without a sourceHash: %+v", got)
	}
	// The real connector package and MLIR text: not compared, said so.
	var conn string
	for _, d := range compiledCorpus(t) {
		if strings.Contains(d, "connector") {
			conn = d
		}
	}
	meta, err := os.ReadFile(filepath.Join(conn, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var md struct{ SourceHash string }
	if err := json.Unmarshal(meta, &md); err != nil || md.SourceHash == "" {
		t.Fatalf("connector metadata.json: %v %q", err, md.SourceHash)
	}
	in := filepath.Join(t.TempDir(), "stand-in.mlir")
	if err := os.WriteFile(in, []byte(standInForConnector), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := checkJSON(in, conn); got.Compared || got.Matches || got.SourceHash != md.SourceHash || got.InputDigest != "" || !strings.Contains(got.Note, "MLIR text") {
		t.Errorf("MLIR text with the connector package: %+v", got)
	}
}
