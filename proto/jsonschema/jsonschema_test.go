package jsonschema

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

// committed is the schema as committed (File, from this package's folder).
func committed(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "schema", filepath.Base(File)))
	if err != nil {
		t.Fatalf("%v; run go generate ./proto", err)
	}
	return b
}

// TestSchemaIsFresh regenerates the schema in memory and compares it with
// the committed file.
func TestSchemaIsFresh(t *testing.T) {
	got, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed(t)) {
		t.Fatalf("%s is stale; run go generate ./proto", File)
	}
}

// TestSchemaReports: the root is anyOf the reports the commands print
// (the messages with schema_version), and schemaVersion must be
// pbprint's number: a report that forgot it does not validate.
func TestSchemaReports(t *testing.T) {
	var root struct {
		AnyOf []struct {
			Ref string `json:"$ref"`
		} `json:"anyOf"`
	}
	if err := json.Unmarshal(committed(t), &root); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range root.AnyOf {
		got = append(got, strings.TrimPrefix(a.Ref, "#/$defs/"))
	}
	want := []string{"BisectReport", "CheckReport", "CompileReport", "InspectReport", "PassInfo", "PassList", "PlanDiff", "ReduceReport", "RewriteReport", "RuleTable", "VerifyReport", "VersionInfo"}
	if !slices.Equal(got, want) {
		t.Errorf("root anyOf = %v, want %v", got, want)
	}
	doc, err := pbprint.Marshal(&pb.CheckReport{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(committed(t), "CheckReport", doc); err == nil || !strings.Contains(err.Error(), "$.schemaVersion: 0 is not 2") {
		t.Errorf("a report without its schema version validated: %v", err)
	}
}

// TestValidateReports marshals reports through pbprint, as every --json
// does, and checks them against the schema: the zero report (every field
// present with its zero), and the non-finite doubles (null, never a
// string), optional fields absent, nested messages null.
func TestValidateReports(t *testing.T) {
	schema := committed(t)
	for _, tc := range []struct {
		def  string
		m    proto.Message
		want []string // substrings of the JSON
	}{
		{"CheckReport", &pb.CheckReport{SchemaVersion: pbprint.SchemaVersion},
			[]string{`"legal": false`, `"groups": []`, `"input": null`, `"functions": 0`}},
		{"VerifyReport", &pb.VerifyReport{SchemaVersion: pbprint.SchemaVersion, LogitsPsnrDb: math.Inf(1), LogitsIdentical: true,
			Ranges:  []*pb.VerifyRange{{MaxAbs: math.NaN(), Flags: []string{"nan"}}},
			MeanKld: proto.Float64(math.Inf(1))},
			[]string{`"logitsPsnrDb": null`, `"logitsIdentical": true`, `"maxAbs": null`, `"meanKld": null`, `"passed": false`, `"localize": null`}},
		{"RewriteReport", &pb.RewriteReport{SchemaVersion: pbprint.SchemaVersion, Passes: []*pb.PassRun{{
			Compressed:  []*pb.CompressedWeight{{SnrDb: math.Inf(1), Exact: true, Resource: "NaN"}},
			Compression: &pb.CompressionTotal{SnrDb: math.Inf(-1), MinSnrDb: 12.5}}}},
			[]string{`"snrDb": null`, `"resource": "NaN"`, `"minSnrDb": 12.5`, `"check": null`, `"outputSize": "0"`}},
		{"PassList", &pb.PassList{SchemaVersion: pbprint.SchemaVersion}, []string{`"passes": []`}},
		{"VersionInfo", &pb.VersionInfo{SchemaVersion: pbprint.SchemaVersion}, []string{`"version": ""`, `"goVersion": ""`}},
	} {
		t.Run(tc.def, func(t *testing.T) {
			doc, err := pbprint.Marshal(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(schema, tc.def, doc); err != nil {
				t.Errorf("%v\n%s", err, doc)
			}
			if err := Validate(schema, "", doc); err != nil {
				t.Errorf("root: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(doc), w) {
					t.Errorf("JSON lacks %s:\n%s", w, doc)
				}
			}
			for _, bad := range []string{`"Infinity"`, `"-Infinity"`, `"NaN"`, `"predictedRegions"`, `"firstDivergence"`} {
				if strings.Contains(strings.ReplaceAll(string(doc), `"resource": "NaN"`, ""), bad) {
					t.Errorf("JSON holds %s:\n%s", bad, doc)
				}
			}
		})
	}
}

// TestValidateRefuses: documents that break each kind of rule, with the
// path and reason worked out by hand.
func TestValidateRefuses(t *testing.T) {
	schema := committed(t)
	for _, tc := range []struct{ def, doc, want string }{
		{"OpCount", `{"opName": "a"}`, `$: required key "count" is missing`},
		{"OpCount", `{"opName": "a", "count": 1, "x": 2}`, `$: key "x" is not in the schema`},
		{"OpCount", `{"opName": 3, "count": 1}`, `$.opName: 3 is integer, want string`},
		{"OpCount", `{"opName": "a", "count": 1.5}`, `$.count: 1.5 is number, want integer`},
		{"OpCount", `{"opName": "a", "count": 2147483648}`, `$.count: 2147483648 is out of range (maximum 2.147483647e+09)`},
		{"TypeCount", `{"type": "f16", "count": "1"}`, `$.count: "1" is string, want integer`},
		{"CompressedWeight", `{"op": null, "resource": "", "type": "", "form": "", "group": 5, "bytesBefore": "1", "bytesAfter": "x", "snrDb": "Infinity", "exact": true}`,
			`$.bytesAfter: "x" does not match ^-?[0-9]+$`},
		{"CompressedWeight", `{"op": null, "resource": "", "type": "", "form": "", "group": "5", "bytesBefore": "1", "bytesAfter": "2", "snrDb": "Infinity", "exact": true}`,
			`$.snrDb: "Infinity" is string, want [number null]`},
		{"Diagnostic", `{"severity": "FATAL", "message": "", "op": null, "code": ""}`, `$.severity: "FATAL" is not one of`},
		{"Diagnostic", `{"severity": "INFO", "message": "", "op": {"opId": 1}, "code": ""}`, `$.op: matches none of anyOf`},
		{"PassList", `{"schemaVersion": 1, "passes": []}`, `$.schemaVersion: 1 is not 2`},
		{"PassList", `{"schemaVersion": 2, "passes": [{}]}`, `$.passes[0]: required key "name" is missing`},
		{"PassList", `[]`, `$: [] is array, want object`},
	} {
		err := Validate(schema, tc.def, []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want %q", tc.def, tc.doc, err, tc.want)
		}
	}
	if err := Validate([]byte(`{"$defs": {"X": {"format": "date"}}}`), "X", []byte(`"a"`)); err == nil || !strings.Contains(err.Error(), `schema keyword "format" is not known`) {
		t.Errorf("unknown keyword: %v", err)
	}
}
