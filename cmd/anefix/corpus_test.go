package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph/oracle"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// corpusBytecode lists the bytecode files Apple's toolchain wrote
// (../shared/corpus beside the repository; never copied into it). Without
// the corpus the test skips, or fails under ANEFIX_REQUIRE_ORACLES=1.
func corpusBytecode(t *testing.T) []string {
	t.Helper()
	var files []string
	filepath.WalkDir("../../../shared/corpus", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".mlirb") || strings.HasSuffix(p, ".mpsgraph")) {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		if oracle.Required() {
			t.Fatalf("no *.mlirb or *.mpsgraph under ../shared/corpus, and %s is set", oracle.RequireEnv)
		}
		t.Skip("no ../shared/corpus beside the repository")
	}
	sort.Strings(files)
	return files
}

// TestCorpusConvertInspect: `convert F -o G` writes every real bytecode file
// back byte-identical (G keeps F's name, so the output kind follows the
// content), and `inspect --json` reports the producer, the top-level op, the
// dialects with their version entries and the ops, consistently with the
// text report.
func TestCorpusConvertInspect(t *testing.T) {
	for _, f := range corpusBytecode(t) {
		t.Run(strings.TrimPrefix(f, "../../../shared/corpus/"), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), filepath.Base(f))
			if code, _, errs := runCLI(t, "", "convert", f, "-o", out); code != exitOK {
				t.Fatalf("convert: exit %d: %s", code, errs)
			}
			want, _ := os.ReadFile(f)
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("convert output differs from the input (%d vs %d bytes, %v)", len(got), len(want), err)
			}

			code, js, errs := runCLI(t, "", "inspect", f, "--json")
			if code != exitOK {
				t.Fatalf("inspect --json: exit %d: %s", code, errs)
			}
			rep := &pb.InspectReport{}
			if err := protojson.Unmarshal([]byte(js), rep); err != nil {
				t.Fatal(err)
			}
			in := rep.GetInput()
			if in.GetBytecodeProducer() != "MLIR22.0.0git" || in.GetBytecodeVersion() != 6 {
				t.Errorf("producer %q version %d", in.GetBytecodeProducer(), in.GetBytecodeVersion())
			}
			var wantTop string
			switch base := filepath.Base(f); {
			case strings.HasPrefix(base, "main-"):
				wantTop = "aicode.serialization.asset"
			case strings.HasPrefix(base, "original_model_"):
				wantTop = "mps.module"
			case strings.HasPrefix(base, "specialized_model_"):
				wantTop = "builtin.module"
				if len(rep.GetGraphs()) != 1 || rep.GetGraphs()[0].GetName() == "" {
					t.Errorf("graphs %v, want the one named func.func", rep.GetGraphs())
				}
			}
			if rep.GetTopLevelOp() != wantTop {
				t.Errorf("top-level op %q, want %q", rep.GetTopLevelOp(), wantTop)
			}
			versioned, ops := 0, int64(0)
			for _, d := range rep.GetDialects() {
				if d.GetHasVersion() {
					versioned++
				}
			}
			for _, c := range rep.GetModuleOpCounts() {
				ops += c.GetCount()
			}
			if versioned == 0 || ops == 0 || len(rep.GetOpaquePropertyOps()) == 0 {
				t.Errorf("%d versioned dialects, %d ops, %d opaque-property op names", versioned, ops, len(rep.GetOpaquePropertyOps()))
			}
			code, text, errs := runCLI(t, "", "inspect", f)
			if code != exitOK || !strings.Contains(text, "module "+wantTop+"  (") || !strings.Contains(text, "producer MLIR22.0.0git") {
				t.Errorf("inspect text: exit %d %s\n%s", code, errs, text)
			}
		})
	}
}
