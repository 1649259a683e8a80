package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	pb "github.com/anefix/anefix/proto/anefixpb"

	"github.com/anefix/anefix/graph/oracle"
)

// compiledCorpus lists the real compiled packages (read-only; never copied
// into the repository). Absent, tests skip unless ANEFIX_REQUIRE_ORACLES or CI.
func compiledCorpus(t *testing.T) []string {
	t.Helper()
	return oracle.CorpusGlob(t, "apple-compiled/*.aimodelc")
}

func TestInspectCompiledCorpus(t *testing.T) {
	for _, d := range compiledCorpus(t) {
		t.Run(filepath.Base(d), func(t *testing.T) {
			code, out, errs := runCLI(t, "", "inspect", d, "--json")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			// Counts have presence: a known 0 is printed, an unknown omitted.
			for _, re := range []string{`"aneRegions": 0`, `"gpuRegions": 1`, `"fullyOnAne": false`, `"requestedDevice": "GPU"`} {
				if !regexp.MustCompile(re).MatchString(out) {
					t.Errorf("--json lacks %s", re)
				}
			}
			var rep pb.InspectReport
			if err := protojson.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			c := rep.GetCompiled()
			if c == nil || len(c.GetFunctions()) != 1 || c.AneRegions == nil || c.GetAneRegions() != 0 || len(c.GetProblems()) != 0 ||
				c.GetMainBytecodeProducer() != "MLIR22.0.0git" || !c.GetHashMatches() || c.GetHashForm() != "raw" {
				t.Errorf("report: %v", c)
			}
			if _, again, _ := runCLI(t, "", "inspect", d, "--json"); again != out {
				t.Error("--json output differs between runs")
			}
			code, text, errs := runCLI(t, "", "inspect", d)
			if code != exitOK {
				t.Fatalf("text: exit %d %s", code, errs)
			}
			for _, want := range []string{"requested:     GPU", "ANE regions:   0", "GPU regions:   1", "fully on ANE:  no",
				"compiled for GPU as requested", "not a fallback", "sourceHash "} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// treeFiles maps each path below root to its bytes ("" + mode for dirs).
func treeFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[r] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		fi, _ := d.Info()
		out[r] = string(b) + "|" + fi.Mode().String()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConvertCompiledCorpus(t *testing.T) {
	for _, d := range compiledCorpus(t) {
		t.Run(filepath.Base(d), func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "copy.h18p.aimodelc")
			code, _, errs := runCLI(t, "", "convert", d, "-o", dst)
			if code != exitOK || !strings.Contains(errs, "copied unchanged") {
				t.Fatalf("exit %d: %s", code, errs)
			}
			want, got := treeFiles(t, d), treeFiles(t, dst)
			if len(want) != len(got) {
				t.Errorf("%d entries copied, input has %d", len(got), len(want))
			}
			for r, w := range want {
				if got[r] != w {
					t.Errorf("%s differs after convert", r)
				}
			}
			// The copy is a compiled package inspect reads the same way.
			if code, _, errs := runCLI(t, "", "inspect", dst); code != exitOK {
				t.Errorf("inspect of the copy: exit %d %s", code, errs)
			}
			if code, _, errs := runCLI(t, "", "convert", d, "-o", dst); code != exitFailure || !strings.Contains(errs, "already exists") {
				t.Errorf("second convert without --force: exit %d %s", code, errs)
			}
			if code, _, errs := runCLI(t, "", "convert", d, "-o", dst, "--force"); code != exitOK {
				t.Errorf("--force over a previous copy: exit %d %s", code, errs)
			}
			os.WriteFile(filepath.Join(dst, "mine.txt"), []byte("user file"), 0o644)
			if code, _, errs := runCLI(t, "", "convert", d, "-o", dst, "--force"); code != exitFailure || !strings.Contains(errs, "mine.txt") {
				t.Errorf("--force over a directory with a user's file: exit %d %s", code, errs)
			}
			if _, err := os.Stat(filepath.Join(dst, "mine.txt")); err != nil {
				t.Errorf("the refused --force removed the user's file: %v", err)
			}
		})
	}
}

func TestConvertCompiledUsage(t *testing.T) {
	src := filepath.Join(t.TempDir(), "m.aimodelc")
	compileStandIn(t, src)
	for _, args := range [][]string{
		{"convert", src, "-o", filepath.Join(t.TempDir(), "x.aimodel")},
		{"convert", src, "-o", "-"},
		{"convert", src, "-o", filepath.Join(t.TempDir(), "y.aimodelc"), "--emit", "generic"},
		{"inspect", armAPath, "--source", armAPath},
	} {
		if code, _, errs := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d %s", args, code, errs)
		}
	}
	// Inside the input is refused like every other output.
	if code, _, errs := runCLI(t, "", "convert", src, "-o", filepath.Join(src, "in.aimodelc")); code != exitFailure || !strings.Contains(errs, "inside the input") {
		t.Errorf("output inside the input: exit %d %s", code, errs)
	}
}

// compileStandIn writes a stand-in compiled package (NOT coreai-build's
// output) with the stand-in compiler.
func compileStandIn(t *testing.T, out string) {
	t.Helper()
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "ane")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	code, _, errs := runCLI(t, "", "compile", armAPath, "--compiler", standIn(t), "--keep", filepath.Dir(out))
	if code != exitOK {
		t.Fatalf("stand-in compile: exit %d %s", code, errs)
	}
	if err := os.Rename(filepath.Join(filepath.Dir(out), "armA.coreai-build", "armA.h18p.aimodelc"), out); err != nil {
		t.Fatal(err)
	}
}

// rewrite, verify, check and compile need the editable graph: on a compiled
// package they exit 1 saying why and what to run instead.
func TestCompiledPackageRefused(t *testing.T) {
	src := filepath.Join(t.TempDir(), "m.aimodelc")
	compileStandIn(t, src)
	for _, args := range [][]string{
		{"rewrite", src, "-o", filepath.Join(t.TempDir(), "o.aimodel")},
		{"verify", src, src},
		{"verify", armAPath, src},
		{"check", src},
		{"compile", src, "--compiler", standIn(t)},
	} {
		code, out, errs := runCLI(t, "", args...)
		if code != exitFailure || !strings.Contains(errs, "is a compiled package") || !strings.Contains(errs, "the .aimodel it was compiled from") ||
			!strings.Contains(errs, "anefix inspect") || out != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, code, out, errs)
		}
	}
	// inspect --source says whether sourceHash is the source's main.mlirb
	// digest (the stand-in writes exactly that; real packages are unconfirmed).
	code, out, _ := runCLI(t, "", "inspect", src, "--source", armAPath)
	if code != exitOK || !strings.Contains(out, "equals the SHA-256 of") {
		t.Errorf("--source: exit %d\n%s", code, out)
	}
	armB := filepath.Join("..", "..", "testdata", "synth", "armB.aimodel")
	code, out, _ = runCLI(t, "", "inspect", src, "--source", armB)
	if code != exitOK || !strings.Contains(out, "differs from the SHA-256 of") || !bytes.Contains([]byte(out), []byte("not known")) {
		t.Errorf("--source of another model: exit %d\n%s", code, out)
	}
}

// An LLM bundle whose assets.main is a compiled package (as public build
// scripts ship one, beside tokenizer/): inspect reads the package, the
// editing commands refuse it.
func TestCompiledPackageInBundle(t *testing.T) {
	bundleDir := filepath.Join(t.TempDir(), "llm")
	compileStandIn(t, filepath.Join(bundleDir, "m.h18p.aimodelc"))
	if err := os.WriteFile(filepath.Join(bundleDir, "metadata.json"), []byte(`{"metadata_version": "0.2", "assets": {"main": "m.h18p.aimodelc"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "inspect", bundleDir)
	if code != exitOK || !strings.Contains(out, "assets.main: "+filepath.Join(bundleDir, "m.h18p.aimodelc")) || !strings.Contains(out, "ANE regions:   1") {
		t.Errorf("inspect: exit %d %s\n%s", code, errs, out)
	}
	if code, _, errs := runCLI(t, "", "rewrite", bundleDir, "-o", filepath.Join(t.TempDir(), "o")); code != exitFailure || !strings.Contains(errs, "is a compiled package") {
		t.Errorf("rewrite: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "convert", bundleDir, "-o", filepath.Join(t.TempDir(), "o.aimodelc")); code != exitFailure || !strings.Contains(errs, "give its .aimodelc directory") {
		t.Errorf("convert: exit %d %s", code, errs)
	}
}
