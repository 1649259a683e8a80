package proto

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/proto/anefixpb"

	"github.com/anefix/anefix/graph/oracle"
)

const wantGenVersion = "protoc-gen-go v1.36.12"

// protocLine is the generated header line naming protoc's version; it is
// masked because protoc's version does not change the generated code we
// depend on, and Debian machines may differ in it.
var protocLine = regexp.MustCompile(`(?m)^// \tprotoc +v.*$`)

// genPath returns a PATH with protoc and protoc-gen-go, or skips (fails in CI)
// when they are not installed.
func genPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv("PATH")
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		path = filepath.Join(strings.TrimSpace(string(out)), "bin") + string(os.PathListSeparator) + path
	}
	t.Setenv("PATH", path)
	unavailable := func(format string, args ...any) {
		t.Helper()
		oracle.Unavailable(t, "protoc toolchain", "apt-get install protobuf-compiler; go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12 (or run .ci/run)", fmt.Errorf(format, args...))
	}
	if _, err := exec.LookPath("protoc"); err != nil {
		unavailable("protoc not found (apt-get install protobuf-compiler): %v", err)
	}
	gen, err := exec.LookPath("protoc-gen-go")
	if err != nil {
		unavailable("protoc-gen-go not found (go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12): %v", err)
	}
	out, err := exec.Command(gen, "--version").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != wantGenVersion {
		unavailable("%s --version = %q, %v; want %q (go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12)", gen, got, err, wantGenVersion)
	}
	return path
}

// TestGeneratedCodeIsFresh regenerates anefixpb into a temporary directory
// and compares it with the committed files.
func TestGeneratedCodeIsFresh(t *testing.T) {
	genPath(t)
	tmp := t.TempDir()
	cmd := exec.Command("go", "run", "./internal/genpb", "-proto", ".", "-out", tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generating: %v\n%s", err, out)
	}
	want := readGenerated(t, tmp)
	got := readGenerated(t, "anefixpb")
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("anefixpb/%s is missing; run go generate ./proto/...", name)
		case !bytes.Equal(g, w):
			t.Errorf("anefixpb/%s is stale; run go generate ./proto/...", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("anefixpb/%s has no .proto source any more; delete it and run go generate ./proto/...", name)
		}
	}
}

func readGenerated(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = protocLine.ReplaceAll(b, nil)
	}
	return m
}

// TestEveryProtoIsGenerated catches a .proto file added without running the
// generator even where protoc is unavailable.
func TestEveryProtoIsGenerated(t *testing.T) {
	protos, err := filepath.Glob("*.proto")
	if err != nil || len(protos) == 0 {
		t.Fatalf("no .proto files: %v", err)
	}
	for _, p := range protos {
		pb := filepath.Join("anefixpb", strings.TrimSuffix(p, ".proto")+".pb.go")
		if _, err := os.Stat(pb); err != nil {
			t.Errorf("%s has no generated %s; run go generate ./proto/...", p, pb)
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"package anefix.v1;", `option go_package = "github.com/anefix/anefix/proto/anefixpb";`} {
			if !bytes.Contains(src, []byte(want)) {
				t.Errorf("%s lacks %q (team rule for proto/)", p, want)
			}
		}
	}
}

// TestInspectReportJSONRoundTrip checks the generated code works with
// protojson, which `anefix inspect --json` uses.
func TestInspectReportJSONRoundTrip(t *testing.T) {
	in := &anefixpb.InspectReport{
		Input: &anefixpb.Input{Path: "m.mlir", Kind: anefixpb.InputKind_MLIR_TEXT, TextForm: "pretty"},
		Graphs: []*anefixpb.GraphInspection{{
			Name:   "main",
			Inputs: []*anefixpb.Port{{Name: "x", Type: "tensor<1x4xf32>"}},
			Fp32Islands: []*anefixpb.Fp32Island{{
				EntryCasts: []*anefixpb.OpRef{{OpId: "_to_copy_12", OpName: "coreai.cast", Source: "qwen.py:290", Graph: "main", Index: 7}},
			}},
		}},
	}
	b, err := protojson.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"opId":"_to_copy_12"`)) && !bytes.Contains(b, []byte(`"opId": "_to_copy_12"`)) {
		t.Errorf("protojson output lacks opId: %s", b)
	}
	out := &anefixpb.InspectReport{}
	if err := protojson.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	if got := out.GetGraphs()[0].GetFp32Islands()[0].GetEntryCasts()[0].GetSource(); got != "qwen.py:290" {
		t.Errorf("round trip source = %q", got)
	}
}
