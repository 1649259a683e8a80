package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"google.golang.org/protobuf/encoding/protojson"

	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/jsonschema"
	"github.com/anefix/anefix/proto/pbprint"
)

// TestJSONReportsMatchSchema runs every command that takes --json and
// checks what it prints against the committed JSON Schema (the schema must
// be what scripts get), its schemaVersion, and the keys a script gates on
// (issue 32): an illegal check has "legal": false, a failed verify
// "passed": false, identical outputs a PSNR of null with logitsIdentical.
func TestJSONReportsMatchSchema(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "..", jsonschema.File))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := synthFile(t, dir, "A", "0", ".mlir")
	b := synthFile(t, dir, "A", "7", ".mlir") // other weights: the gates fail
	cases := []struct {
		args []string
		code int
		def  string
		want []string
	}{
		{[]string{"check", armAPath, "--json"}, exitGate, "CheckReport", []string{`"legal": false`}},
		{[]string{"check", "--rules", "--json"}, exitOK, "RuleTable", []string{`"id": "element-type"`, `"fromCompiler": false`, `"architecture": "h18p"`}},
		{[]string{"compile", armAPath, "--compiler", standIn(t), "--json"}, exitOK, "CompileReport", []string{`"regionsKnown": `}},
		{[]string{"inspect", armAPath, "--json"}, exitOK, "InspectReport", []string{`"compiled": null`}},
		{[]string{"passes", "--json"}, exitOK, "PassList", []string{`"defaultOn": false`}},
		{[]string{"--version", "--json"}, exitOK, "VersionInfo", []string{`"version": "0.1.0-dev"`}},
		{[]string{"passes", "palettize", "--json"}, exitOK, "PassInfo", []string{`"name": "palettize"`}},
		{[]string{"rewrite", armAPath, "-o", filepath.Join(dir, "out.aimodel"), "--json"}, exitOK, "RewriteReport", []string{`"written": true`, `"dryRun": false`}},
		// Every weight taken and left (no SNR: null), and rules with left weights.
		{[]string{"rewrite", "../../testdata/families/mamba2.mlir", "--dry-run", "--enable", "palettize", "--set", "palettize.min-elements=1", "--json"}, exitOK, "RewriteReport",
			[]string{`"taken": 4`, `"left": 4`, `"snrDb": null`, `"name": "%v13"`}},
		{[]string{"rewrite", armAPath, "--dry-run", "--enable", "palettize", "--set", "palettize.rules=*attn*:bits=6,*mlp*:bits=4", "--json"}, exitOK, "RewriteReport",
			[]string{`"hint": "group-size=34"`, `"compressed": 14`, `"leftBytes": "13056"`}},
		{[]string{"verify", a, b, "--streams", "2", "--length", "8", "--json"}, exitGate, "VerifyReport", []string{`"passed": false`, `"logitsIdentical": false`}},
		{[]string{"verify", a, a, "--streams", "1", "--length", "4", "--json"}, exitOK, "VerifyReport", []string{`"passed": true`, `"logitsPsnrDb": null`, `"logitsIdentical": true`}},
		{[]string{"verify", a, b, "--mode", "greedy", "--steps", "4", "--json"}, exitGate, "VerifyReport", []string{`"passed": false`, `"firstDivergence": `}},
		{[]string{"diff", a, a, "--json"}, exitOK, "PlanDiff", []string{`"architecture": "h18p"`}},
		{[]string{"bisect", armAPath, "--test", "true {}", "--no-cache", "--json"}, exitGate, "BisectReport", []string{`"result": "input-good"`, `"minimal": []`}},
		{[]string{"reduce", armAPath, "--test", "false {}", "-o", filepath.Join(dir, "small.aimodel"), "--no-cache", "--json"}, exitGate, "ReduceReport", []string{`"result": "input-bad"`}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		name := strings.Join(c.args, " ")
		covered[c.args[0]] = true
		code, out, errs := runCLI(t, "", c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, c.code, errs)
			continue
		}
		if err := jsonschema.Validate(schema, c.def, []byte(out)); err != nil {
			t.Errorf("%s: does not match the schema's %s: %v", name, c.def, err)
		}
		var top struct {
			SchemaVersion *int `json:"schemaVersion"`
		}
		if err := json.Unmarshal([]byte(out), &top); err != nil || top.SchemaVersion == nil || *top.SchemaVersion != pbprint.SchemaVersion {
			t.Errorf("%s: schemaVersion %v, want %d (%v)", name, top.SchemaVersion, pbprint.SchemaVersion, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %s", name, w)
			}
		}
		for _, bad := range []string{`"Infinity"`, `"-Infinity"`, `"NaN"`} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: output holds %s", name, bad)
			}
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range commands {
			if !yield(n) {
				return
			}
		}
	}) {
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		commands[name].Setup(fs)
		if fs.Lookup("json") != nil && !covered[name] {
			t.Errorf("%s takes --json but TestJSONReportsMatchSchema runs no case of it", name)
		}
	}
}

// TestRewriteReportEmbedsCheck: the check inside `rewrite --report` is the
// message `check OUT --json` prints for the written model, byte for byte
// once re-marshalled, but for what rewrite cannot know or does not run:
// input (null: the module checked is the report's output) and the fp16
// hazard rules (hazards empty, hazardNotes saying they did not run).
func TestRewriteReportEmbedsCheck(t *testing.T) {
	dir := t.TempDir()
	out, report := filepath.Join(dir, "out.aimodel"), filepath.Join(dir, "r.json")
	// Without strip-fp32-casts the output still has blockers: groups,
	// graphs and findings are not empty.
	if code, _, errs := runCLI(t, "", "rewrite", armAPath, "-o", out, "--disable", "strip-fp32-casts", "--report", report); code != exitOK {
		t.Fatalf("rewrite: exit %d\n%s", code, errs)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rw struct {
		Check json.RawMessage `json:"check"`
	}
	if err := json.Unmarshal(raw, &rw); err != nil {
		t.Fatal(err)
	}
	embedded := &pb.CheckReport{}
	if err := protojson.Unmarshal(rw.Check, embedded); err != nil {
		t.Fatalf("the report's check is not a CheckReport: %v\n%s", err, rw.Check)
	}
	code, cj, errs := runCLI(t, "", "check", out, "--json")
	if code != exitGate {
		t.Fatalf("check OUT: exit %d, want %d (blockers)\n%s", code, exitGate, errs)
	}
	direct := &pb.CheckReport{}
	if err := protojson.Unmarshal([]byte(cj), direct); err != nil {
		t.Fatal(err)
	}
	if embedded.Input != nil || len(embedded.Hazards) != 0 || !slices.Equal(embedded.HazardNotes, []string{rwHazardNote}) {
		t.Errorf("embedded input %v, hazards %d, notes %q", embedded.Input, len(embedded.Hazards), embedded.HazardNotes)
	}
	if len(embedded.Groups) == 0 || len(embedded.Graphs) == 0 || len(embedded.Graphs[0].Findings) == 0 {
		t.Errorf("the embedded check lacks the blockers' groups or findings: %s", rw.Check)
	}
	for _, r := range []*pb.CheckReport{embedded, direct} {
		r.Input, r.Hazards, r.HazardNotes = nil, nil, nil
		for _, g := range r.Graphs {
			g.Hazards = nil
		}
	}
	e, err1 := pbprint.Marshal(embedded)
	d, err2 := pbprint.Marshal(direct)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(e, d) {
		t.Errorf("rewrite's check differs from check --json of its output:\n%s\n---\n%s", e, d)
	}
}
