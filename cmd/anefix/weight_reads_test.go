package main

import (
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/modelio"
)

// TestCommandsReadEachWeightOnce runs rewrite (default pipeline, with
// externalize-constant, arm D) and convert in-process on a 24-layer synth
// arm A .aimodel with every weight blob behind an instrumented reader
// (graph.CountReads, installed by loadedHook) and fails when any blob is
// read more than once: the writer's copy of it into the output is the one
// read a rewrite must do, and everything before it (the passes, check's
// verdict, the whole-module check) must read no weights. (The counted
// blobs are not sections of the input file, so the writer streams them
// through the reader instead of copying file ranges.) The passes read
// blobs they convert (passes' TestPassReadsOnlyConvertedBlobs); arm A's
// default pipeline converts none. Before issue 22's fix strip-fp32-casts
// read every weight through check's fp16 hazard rules, twice in all.
func TestCommandsReadEachWeightOnce(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.aimodel")
	if code, _, stderr := runCLI(t, "", "synth", "--arm", "A", "--layers", "24", "-o", in); code != 0 {
		t.Fatalf("synth: exit %d\n%s", code, stderr)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"rewrite", []string{"rewrite", in}},
		{"rewrite externalize-constant", []string{"rewrite", in, "--enable", "externalize-constant"}},
		{"rewrite arm-d", []string{"rewrite", in, "--arm-d"}},
		{"convert", []string{"convert", in}},
		{"convert to text", []string{"convert", in, "--emit", "generic"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var reads *graph.BlobReads
			loadedHook = func(ld *modelio.Loaded) { reads = graph.CountReads(ld.Module) }
			defer func() { loadedHook = nil }()
			out := filepath.Join(dir, string(rune('a'+i))+".aimodel")
			if tc.args[len(tc.args)-1] == "generic" {
				out = filepath.Join(dir, string(rune('a'+i))+".mlir")
			}
			if code, _, stderr := runCLI(t, "", append(tc.args, "-o", out)...); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if reads == nil || len(reads.Keys()) == 0 {
				t.Fatal("no blob was counted: the case proves nothing")
			}
			once := 0
			for _, k := range reads.Keys() {
				switch n, size := reads.Read(k), reads.Size(k); {
				case n > size:
					t.Errorf("blob %q (%d bytes) read %d bytes: %.1f times", k, size, n, float64(n)/float64(size))
				case n == size:
					once++
				}
			}
			if once == 0 {
				t.Error("no blob was read whole: the writer did not read through the counted blobs, so the case proves nothing")
			}
			t.Logf("%d blobs, %d read once, %d bytes read in all", len(reads.Keys()), once, reads.Total())
		})
	}
}
