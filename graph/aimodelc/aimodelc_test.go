package aimodelc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"howett.net/plist"

	"github.com/anefix/anefix/graph/oracle"
)

// corpus is the real compiled packages (read-only, never copied into the
// repository). Absent, tests skip unless ANEFIX_REQUIRE_ORACLES or CI.
func corpus(t testing.TB) []string {
	t.Helper()
	return oracle.CorpusGlob(t, "apple-compiled/*.aimodelc")
}

// The real packages: coreai-build-3600.67.5.8.1, all GPU-placed.
func TestCorpus(t *testing.T) {
	for _, d := range corpus(t) {
		t.Run(filepath.Base(d), func(t *testing.T) {
			p, err := Open(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Arch != "h18p" || p.MainFile != "main-h18p.mlirb" || !p.Hash.Present || p.Hash.Form != "raw" || !p.Hash.Matches {
				t.Errorf("main file / hash: %s %s %+v", p.Arch, p.MainFile, p.Hash)
			}
			if p.Main == nil || p.Main.Version != 6 || p.Main.Producer != "MLIR22.0.0git" {
				t.Errorf("main file not read as MLIR 22 bytecode: %+v", p.Main)
			}
			if p.Metadata == nil || p.Metadata.Producer != "coreai-build-3600.67.5.8.1" || len(p.Metadata.SourceHash) != 64 || len(p.Metadata.Keys) != 4 {
				t.Errorf("metadata: %+v", p.Metadata)
			}
			if p.Stats == nil || len(p.Stats.Operations) == 0 || len(p.Stats.StorageTypes) == 0 || len(p.Stats.ComputeTypes) == 0 {
				t.Errorf("stats: %+v", p.Stats)
			}
			if len(p.Problems) != 0 {
				t.Errorf("problems: %q", p.Problems)
			}
			if len(p.Delegates) != 1 || !strings.HasSuffix(p.Delegates[0].ANERegionsHash["h18p"], "_E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855") {
				t.Errorf("delegates: %+v", p.Delegates)
			}
			if len(p.Functions) != 1 {
				t.Fatalf("%d functions", len(p.Functions))
			}
			f := p.Functions[0]
			if f.Symbol != f.Name+"_0" || f.Requested != "GPU" || f.UseANELLIR != "true" || !slices.Contains(f.Attributes, "mps.aneAlignedIO") {
				t.Errorf("function: %+v", f)
			}
			if !f.ANE.Known || f.ANE.N != 0 || !f.GPU.Known || f.GPU.N != 1 || !f.FullyOnANE.Known || f.FullyOnANE.Value {
				t.Errorf("placement: ANE %+v GPU %+v fully %+v", f.ANE, f.GPU, f.FullyOnANE)
			}
			if len(f.Disagreements) != 0 || len(f.RequestedEvidence) != 3 {
				t.Errorf("disagreements %q, requested evidence %q", f.Disagreements, f.RequestedEvidence)
			}
			if c := p.ANERegions(); !c.Known || c.N != 0 {
				t.Errorf("package ANE regions: %+v", c)
			}
		})
	}
}

// standIn runs the stand-in compiler (testdata/compiler/fake-coreai-build.sh,
// NOT coreai-build) into a temporary directory and returns the .aimodelc.
func standIn(t *testing.T, env ...string) string {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command("sh", filepath.Join("..", "..", "testdata", "compiler", "fake-coreai-build.sh"), "compile",
		filepath.Join("..", "..", "testdata", "synth", "armA.aimodel"), "--platform", "iOS", "--preferred-compute", "neural-engine",
		"--architecture", "h18p", "--output", out)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stand-in compiler: %v\n%s", err, b)
	}
	return filepath.Join(out, "armA.h18p.aimodelc")
}

const pkgDir = "main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage"

// Stand-in trees in the layout public build scripts describe (no public
// package shows a real ANE region tree).
func TestStandInLayout(t *testing.T) {
	cases := []struct {
		name             string
		env              []string
		fns, ane, gpu    int
		fully, requested string
	}{
		{"two ANE regions count two", []string{"FAKE_COREAI_BUILD_SCENARIO=ane", "FAKE_COREAI_BUILD_ANE_REGIONS=2"}, 1, 2, 0, "yes", "ANE"},
		{"fallback", []string{"FAKE_COREAI_BUILD_SCENARIO=fallback"}, 1, 0, 1, "no", "ANE"},
		{"three functions, one region each", []string{"FAKE_COREAI_BUILD_SCENARIO=ane", "FAKE_COREAI_BUILD_FUNCTIONS=3"}, 3, 1, 0, "yes", "ANE"},
		{"prefix names", []string{"FAKE_COREAI_BUILD_SCENARIO=ane", "FAKE_COREAI_BUILD_REGIONS=f f_2"}, 2, 1, 0, "yes", "ANE"},
	}
	// The mlir-opt 22 case (its subtest alone skips, or fails under
	// ANEFIX_REQUIRE_ORACLES or CI, when mlir-opt 22 is missing).
	const mlirOptCase = "specialized graph as mlir-opt 22 bytecode"
	cases = append(cases, struct {
		name             string
		env              []string
		fns, ane, gpu    int
		fully, requested string
	}{mlirOptCase, []string{"FAKE_COREAI_BUILD_SCENARIO=ane", "FAKE_COREAI_BUILD_ANE_REGIONS=2", "FAKE_COREAI_BUILD_MLIR_OPT=" + oracle.MlirOpts[1].Path}, 1, 2, 0, "yes", "ANE"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == mlirOptCase {
				oracle.MlirOpts[1].Require(t)
			}
			p, err := Open(standIn(t, c.env...), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Problems) != 0 || len(p.Functions) != c.fns {
				t.Fatalf("%d functions, problems %q", len(p.Functions), p.Problems)
			}
			for _, f := range p.Functions {
				fully := map[bool]string{true: "yes", false: "no"}[f.FullyOnANE.Value]
				if !f.ANE.Known || f.ANE.N != c.ane || !f.GPU.Known || f.GPU.N != c.gpu || !f.FullyOnANE.Known || fully != c.fully ||
					f.Requested != c.requested || len(f.Disagreements) != 0 || len(f.RegionDirs) != c.ane {
					t.Errorf("%s: ANE %+v GPU %+v fully %+v requested %s dirs %q disagree %q", f.Name, f.ANE, f.GPU, f.FullyOnANE, f.Requested, f.RegionDirs, f.Disagreements)
				}
			}
			if tot := p.ANERegions(); !tot.Known || tot.N != c.fns*c.ane {
				t.Errorf("total %+v", tot)
			}
		})
	}
}

func TestSourceHash(t *testing.T) {
	dir := standIn(t, "FAKE_COREAI_BUILD_SCENARIO=fallback")
	for _, c := range []struct {
		src   string
		match bool
	}{
		{filepath.Join("..", "..", "testdata", "synth", "armA.aimodel"), true}, // the stand-in hashed it
		{filepath.Join("..", "..", "testdata", "synth", "armB.aimodel"), false},
	} {
		p, err := Open(dir, Options{Source: c.src})
		if err != nil {
			t.Fatal(err)
		}
		if p.Source == nil || p.Source.Matches != c.match || len(p.Source.Digest) != 64 {
			t.Errorf("%s: %+v", c.src, p.Source)
		}
	}
	if _, err := Open(dir, Options{Source: "no/such.aimodel"}); err == nil || !strings.Contains(err.Error(), "--source no/such.aimodel") {
		t.Errorf("missing source: %v", err)
	}
}

// copyTree copies a directory into a writable temporary one (tests only;
// the copy lives in t.TempDir, never in the repository).
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		q := filepath.Join(dst, r)
		if fi.IsDir() {
			return os.MkdirAll(q, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(q, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Bad input: a clear error or a clearly marked unknown, never a panic and
// never a guessed count.
func TestBadInput(t *testing.T) {
	type result struct {
		p   *Package
		err error
	}
	edit := func(rel string, f func([]byte) []byte) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	region := pkgDir + "/binary_0.llir.bundle/fn0_0_ANE_region_0_0.bc"
	cases := []struct {
		name   string
		env    string // stand-in scenario
		mutate func(t *testing.T, dir string)
		check  func(t *testing.T, r result)
	}{
		{"manifest is not a plist", "ane", edit(pkgDir+"/manifest.plist", func([]byte) []byte { return []byte("{not a plist") }),
			func(t *testing.T, r result) { wantUnknown(t, r.p, r.err, "is not a property list") }},
		{"manifest lies: fullyPlacedOnANE on a GPU function", "fallback",
			edit(pkgDir+"/manifest.plist", func(b []byte) []byte {
				return bytes.Replace(b, []byte("<string>mps.aneAlignedIO</string>"), []byte("<string>mps.aneAlignedIO</string><string>mps.fullyPlacedOnANE</string>"), 1)
			}),
			func(t *testing.T, r result) { wantDisagreement(t, r.p, r.err, "mps.fullyPlacedOnANE") }},
		{"manifest lies: names a graph file that is absent", "ane", edit(pkgDir+"/manifest.plist", func(b []byte) []byte {
			return bytes.Replace(b, []byte("<string>specialized_model_1.mpsgraph</string>"), []byte("<string>specialized_model_7.mpsgraph</string>"), 1)
		}), func(t *testing.T, r result) {
			if r.err != nil {
				t.Fatal(r.err)
			}
			f := r.p.Functions[0]
			// The directories still count, flagged as unconfirmed; GPU is unknown.
			if f.GPU.Known || !f.ANE.Known || f.ANE.N != 1 || !strings.Contains(strings.Join(f.ANE.Evidence, " "), "could not be read") {
				t.Errorf("ANE %+v GPU %+v", f.ANE, f.GPU)
			}
		}},
		{"manifest lies: one region more in the graph than on disk", "ane", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(region))); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r result) {
			wantDisagreement(t, r.p, r.err, "1 region_type<ANE> entry, the package 0 region directories")
		}},
		{"region directory without binaries", "ane", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(region), "h18p", "fn0_0_ANE_region_0_0.mlir.bc")); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r result) { wantDisagreement(t, r.p, r.err, "hold no *.mlir.bc binary") }},
		{"region directory of no function", "ane", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "stray_ANE_region_0_0.bc", "h18p"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r result) {
			if r.err != nil {
				t.Fatal(r.err)
			}
			if c := r.p.ANERegions(); c.Known || len(r.p.Unattributed) != 1 {
				t.Errorf("total %+v, unattributed %q", c, r.p.Unattributed)
			}
		}},
		{"a file named like a region", "fallback", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "fn0_ANE_region_0_0.bc"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r result) {
			if r.err != nil || r.p.Functions[0].ANE.N != 0 || !strings.Contains(strings.Join(r.p.Problems, " "), "is a file") {
				t.Errorf("%v %q", r.err, r.p.Problems)
			}
		}},
		{"truncated specialized graph", "ane", edit(pkgDir+"/specialized_model_1.mpsgraph", func(b []byte) []byte { return b[:len(b)/2] }),
			func(t *testing.T, r result) {
				if r.err != nil || r.p.Functions[0].GPU.Known || !strings.Contains(strings.Join(r.p.Problems, " "), "cannot read") {
					t.Errorf("%v %+v %q", r.err, r.p.Functions[0].GPU, r.p.Problems)
				}
			}},
		{"main.hash of the wrong length", "ane", edit(hashFile, func(b []byte) []byte { return b[:31] }),
			func(t *testing.T, r result) { wantErr(t, r.err, "want the 32-byte SHA-256 digest") }},
		{"main.hash mismatch", "ane", edit("main-h18p.mlirb", func(b []byte) []byte { return append(b, ' ') }),
			func(t *testing.T, r result) { wantErr(t, r.err, "does not match the SHA-256 of main-h18p.mlirb") }},
		{"metadata.json is not JSON", "ane", edit(metadataFile, func([]byte) []byte { return []byte("[") }),
			func(t *testing.T, r result) {
				if r.err != nil || r.p.Metadata != nil || !strings.Contains(strings.Join(r.p.Problems, " "), "metadata.json is not a JSON object") {
					t.Errorf("%v %q", r.err, r.p.Problems)
				}
			}},
		{"no delegate", "ane", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "main-h18p-delegates")); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, r result) { wantUnknown(t, r.p, r.err, "no .mpsgraphpackage delegate") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := standIn(t, "FAKE_COREAI_BUILD_SCENARIO="+c.env)
			c.mutate(t, dir)
			p, err := Open(dir, Options{})
			c.check(t, result{p, err})
		})
	}
	t.Run("not a compiled package", func(t *testing.T) {
		aim := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
		if IsPackage(aim) {
			t.Error("an .aimodel is not a compiled package")
		}
		wantErr(t, func() error { _, err := Open(t.TempDir(), Options{}); return err }(), "has no main-<arch>.mlirb")
		// A damaged package named *.aimodelc is still recognised, so its
		// error names what is missing.
		dir := standIn(t, "FAKE_COREAI_BUILD_SCENARIO=ane")
		if err := os.Remove(filepath.Join(dir, "main-h18p.mlirb")); err != nil {
			t.Fatal(err)
		}
		if !IsPackage(dir) {
			t.Error("a *.aimodelc without its main file is not recognised")
		}
		wantErr(t, func() error { _, err := Open(dir, Options{}); return err }(), "has no main-<arch>.mlirb")
	})
	t.Run("ignore-hash", func(t *testing.T) {
		dir := standIn(t, "FAKE_COREAI_BUILD_SCENARIO=ane")
		edit("main-h18p.mlirb", func(b []byte) []byte { return append(b, ' ') })(t, dir)
		p, err := Open(dir, Options{IgnoreHash: true})
		if err != nil || !strings.Contains(strings.Join(p.Problems, " "), "does not match") {
			t.Errorf("%v %v", err, p)
		}
	})
}

// Truncated and bit-flipped copies of the real packages' files (in a
// temporary directory): errors or marked unknowns, never a panic.
func TestCorpusDamaged(t *testing.T) {
	d := corpus(t)[0]
	files := []string{"main-h18p.mlirb", metadataFile, statsFile, pkgDir + "/manifest.plist", pkgDir + "/specialized_model_1.mpsgraph"}
	for _, rel := range files {
		orig, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{0, 1, len(orig) / 3, len(orig) - 1} {
			dir := copyTree(t, d)
			os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), orig[:cut], 0o644)
			checkDamaged(t, dir, rel)
		}
		for _, at := range []int{0, 4, len(orig) / 2, len(orig) - 2} {
			dir := copyTree(t, d)
			b := append([]byte(nil), orig...)
			b[at] ^= 0x40
			os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), b, 0o644)
			checkDamaged(t, dir, rel)
		}
	}
}

func checkDamaged(t *testing.T, dir, rel string) {
	t.Helper()
	p, err := Open(dir, Options{})
	if err != nil {
		return // a clear error (the hash check catches every change to the main file)
	}
	f := p.Functions
	if len(f) == 1 && f[0].ANE.Known && f[0].GPU.Known && f[0].GPU.N == 1 && f[0].ANE.N == 0 {
		return // the damage did not touch the placement (stats, metadata, a string)
	}
	if len(p.Problems) == 0 && (len(f) == 0 || len(f[0].Disagreements) == 0) {
		t.Errorf("%s damaged: counts changed without a problem or disagreement: %+v", rel, *f[0])
	}
}

func wantErr(t *testing.T, err error, sub string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Errorf("want an error containing %q, got %v", sub, err)
	}
}

func wantUnknown(t *testing.T, p *Package, err error, sub string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if c := p.ANERegions(); c.Known {
		t.Errorf("ANE regions known (%d) although %q", c.N, sub)
	}
	if !strings.Contains(strings.Join(p.Problems, " "), sub) {
		t.Errorf("problems %q lack %q", p.Problems, sub)
	}
}

func wantDisagreement(t *testing.T, p *Package, err error, sub string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Functions) != 1 {
		t.Fatalf("%d functions", len(p.Functions))
	}
	f := p.Functions[0]
	if !strings.Contains(strings.Join(f.Disagreements, " "), sub) {
		t.Errorf("disagreements %q lack %q", f.Disagreements, sub)
	}
	if strings.Contains(sub, "region") && f.ANE.Known {
		t.Errorf("ANE count %d presented as known despite %q", f.ANE.N, sub)
	}
}

// The same manifest in XML (as the corpus has it), binary and OpenStep
// form (re-encoded in memory by howett.net/plist, which anefix uses only
// in tests, as an encoder independent of its reader) reads the same.
func TestManifestForms(t *testing.T) {
	xml, err := os.ReadFile(filepath.Join(corpus(t)[0], filepath.FromSlash(pkgDir), manifestFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseManifest(xml, "xml")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if _, err := plist.Unmarshal(xml, &v); err != nil {
		t.Fatal(err)
	}
	for _, form := range []int{plist.BinaryFormat, plist.OpenStepFormat, plist.GNUStepFormat} {
		b, err := plist.Marshal(v, form)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseManifest(b, "other form")
		if err != nil {
			t.Fatalf("form %d: %v", form, err)
		}
		got.Format = want.Format
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("form %d reads differently:\n%v\nwant\n%v", form, got, want)
		}
	}
}

func TestDeviceName(t *testing.T) {
	for v, want := range map[int64]string{1: "GPU", 2: "ANE", 3: "GPU+ANE", 4: "CPU", 7: "GPU+ANE+CPU", 0: "unknown(0)", 8: "unknown(8)", -1: "unknown(-1)"} {
		if got := deviceName(v); got != want {
			t.Errorf("DeviceName(%d) = %s, want %s", v, got, want)
		}
	}
}

// The real packages' specialized graphs keep coreai-torch's debuginfo on
// the ops inside their regions: each FX node name is read with the region
// types it sits in. All three packages are GPU-placed (the corpus README:
// one GPU region each, no ANE region), so every name is in GPU only; each
// name is checked against the file's bytes (a reader-independent sign it
// is there) and the connector's Linear layers' addmm must be among them.
func TestCorpusFXRegionTypes(t *testing.T) {
	for _, d := range corpus(t) {
		t.Run(filepath.Base(d), func(t *testing.T) {
			p, err := Open(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := p.Functions[0]
			raw, err := os.ReadFile(filepath.Join(d, f.GraphFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.FXRegionTypes) < 5 {
				t.Fatalf("%d FX names read from the regions", len(f.FXRegionTypes))
			}
			for name, types := range f.FXRegionTypes {
				if !slices.Equal(types, []string{"GPU"}) {
					t.Errorf("%s in %v; the package has GPU regions only", name, types)
				}
				if !strings.Contains(string(raw), name) {
					t.Errorf("%s is not in %s's bytes", name, f.GraphFile)
				}
			}
			t.Logf("%d FX names in the regions of %s", len(f.FXRegionTypes), f.Name)
			if strings.Contains(d, "connector") && f.FXRegionTypes["addmm"] == nil {
				t.Errorf("connector: addmm not among %d names", len(f.FXRegionTypes))
			}
		})
	}
}
