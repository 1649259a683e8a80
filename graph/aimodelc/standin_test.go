package aimodelc

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// statefulStandIn is testdata/compiled/stateful-stand-in.h18p.aimodelc (a
// STAND-IN, see testdata/compiled/README.md), copied into a temporary
// directory so tests can change it.
func statefulStandIn(t *testing.T) string {
	t.Helper()
	return copyTree(t, filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in.h18p.aimodelc"))
}

func setManifest(t *testing.T, dir string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(pkgDir), manifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readStandInManifest(t *testing.T, form string) []byte {
	t.Helper()
	p := filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in.h18p.aimodelc", filepath.FromSlash(pkgDir), manifestFile)
	if form != "xml" {
		p = filepath.Join("..", "..", "testdata", "compiled", "stateful-stand-in-manifest."+form+".plist")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The stand-in stateful package reads the same with its manifest in each
// form: one function on the GPU, its string attributes, and the states
// the manifest's dictionaries name. Before the manifest reader took every
// value type, the dictionaries made the delegate unknown (no function).
func TestStatefulStandIn(t *testing.T) {
	for _, form := range []string{"xml", "binary", "openstep"} {
		t.Run(form, func(t *testing.T) {
			dir := statefulStandIn(t)
			setManifest(t, dir, readStandInManifest(t, form))
			p, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Problems) != 0 || len(p.Functions) != 1 {
				t.Fatalf("%d functions, problems %q", len(p.Functions), p.Problems)
			}
			f := p.Functions[0]
			if f.Name != "decode_stand_in" || f.Symbol != "decode_stand_in_0" || f.Requested != "GPU" || !f.GPU.Known || f.GPU.N != 1 || !f.ANE.Known || f.ANE.N != 0 {
				t.Errorf("function %+v", f)
			}
			if strings.Join(f.Attributes, ",") != "mps.aneAlignedIO,mps.disablePreAllocate" {
				t.Errorf("attributes %q", f.Attributes)
			}
			checkStates(t, f)
		})
	}
}

// Manifests holding values of shapes the reader does not expect, each in
// a place the real packages hold something else: the value is recorded (a
// problem naming the key path) and the delegate's function is still read.
func TestManifestUnexpectedShapes(t *testing.T) {
	xml := string(readStandInManifest(t, "xml"))
	edit := func(old, new string) string {
		if !strings.Contains(xml, old) {
			t.Fatalf("the stand-in manifest lacks %q", old)
		}
		return strings.Replace(xml, old, new, 1)
	}
	cases := []struct {
		name, manifest, problem string
	}{
		{"an integer among the attributes", edit("<string>mps.aneAlignedIO</string>", "<string>mps.aneAlignedIO</string><integer>7</integer>"), `holds an integer (7)`},
		{"a date among the attributes", edit("<string>mps.aneAlignedIO</string>", "<string>mps.aneAlignedIO</string><date>2024-01-02T03:04:05Z</date>"), `holds a date`},
		{"state indices as a string", edit("<array>\n\t\t\t\t\t\t\t\t\t<integer>0</integer>\n\t\t\t\t\t\t\t\t\t<integer>1</integer>\n\t\t\t\t\t\t\t\t</array>", "<string>0,1</string>"), `mps.stateInputIndices is a string`},
		{"a negative state index", edit("<integer>0</integer>", "<integer>-1</integer>"), `mps.stateInputIndices holds -1`},
		{"attributes as a dictionary", edit("<key>decode_stand_in_0</key>\n\t\t\t\t\t\t<array>", "<key>other_0</key><dict><key>x</key><true/></dict><key>decode_stand_in_0</key>\n\t\t\t\t\t\t<array>"), `"other_0" is a dictionary ({"x": true}), want an array`},
		{"ANERegionsHash of an integer", edit("<key>h18p</key>", "<key>h16g</key><integer>1</integer><key>h18p</key>"), `ANERegionsHash`},
		{"preferredDevice a string", edit(`\"preferredDevice\" : 1`, `\"preferredDevice\" : \"GPU\"`), `preferredDevice`},
		{"useANELLIR a string", edit(`\"useANELLIR\" : true`, `\"useANELLIR\" : \"yes\"`), `useANELLIR`},
		{"Key to Symbol Name value a number", edit("<string>decode_stand_in_0</string>\n\t\t\t\t\t</dict>", "<real>0.5</real>\n\t\t\t\t\t</dict>"), `"Key to Symbol Name"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := statefulStandIn(t)
			setManifest(t, dir, []byte(c.manifest))
			p, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Functions) != 1 {
				t.Fatalf("%d functions (the delegate became unknown): %q", len(p.Functions), p.Problems)
			}
			if !strings.Contains(strings.Join(p.Problems, "\n"), c.problem) {
				t.Errorf("problems %q lack %q", p.Problems, c.problem)
			}
			for _, pr := range p.Problems {
				if strings.Contains(pr, "this delegate's functions and regions are unknown") {
					t.Errorf("the delegate was made unknown: %s", pr)
				}
			}
		})
	}
}

// The OpenStep form holds only strings: state indices written as strings
// are recorded as a shape the reader does not read, never guessed.
func TestStatefulStandInStringIndices(t *testing.T) {
	b := readStandInManifest(t, "openstep")
	b = bytes.ReplaceAll(b, []byte("<*I0>"), []byte(`"0"`))
	dir := statefulStandIn(t)
	setManifest(t, dir, b)
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Functions) != 1 || !strings.Contains(strings.Join(p.Problems, "\n"), `mps.stateInputIndices holds a string ("0")`) {
		t.Errorf("%d functions, problems %q", len(p.Functions), p.Problems)
	}
}

// checkStates: the stand-in's states (inputs 0 and 1, with the graph's
// types) and token results (1 and 2), each with its evidence.
func checkStates(t *testing.T, f *Function) {
	t.Helper()
	want := []stateInput{{0, "tensor<1x8x16xf16>"}, {1, "tensor<1x8x4xf16>"}}
	if fmt.Sprint(f.States) != fmt.Sprint(want) || fmt.Sprint(f.TokenResults) != "[1 2]" {
		t.Errorf("states %v, token results %v; want %v, [1 2]", f.States, f.TokenResults, want)
	}
	ev := strings.Join(f.StatesEvidence, "\n")
	for _, w := range []string{"manifest.plist: Entry Function Attributes of decode_stand_in_0: mps.stateInputIndices = [0, 1]", "specialized_model_1.mpsgraph: the inputs of @decode_stand_in_0 (0: tensor<1x8x16xf16>, 1: tensor<1x8x4xf16>)"} {
		if !strings.Contains(ev, w) {
			t.Errorf("state evidence %q lacks %q", f.StatesEvidence, w)
		}
	}
	if strings.Join(f.Valued, "; ") != "mps.stateInputIndices = [0, 1]; mps.tokenResIndices = [1, 2]" {
		t.Errorf("valued attributes %q", f.Valued)
	}
	if len(f.Disagreements) != 0 {
		t.Errorf("disagreements %q", f.Disagreements)
	}
}

// An index the graph's function does not have is a disagreement, not a
// state with a guessed type.
func TestStateIndexOutOfRange(t *testing.T) {
	b := bytes.Replace(readStandInManifest(t, "xml"), []byte("<integer>1</integer>\n\t\t\t\t\t\t\t\t</array>"), []byte("<integer>5</integer>\n\t\t\t\t\t\t\t\t</array>"), 1)
	b = bytes.Replace(b, []byte("<integer>2</integer>"), []byte("<integer>3</integer>"), 1)
	dir := statefulStandIn(t)
	setManifest(t, dir, b)
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := p.Functions[0]
	d := strings.Join(f.Disagreements, "\n")
	if !strings.Contains(d, "names input 5, but @decode_stand_in_0 in main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/specialized_model_1.mpsgraph has 3 input(s)") ||
		!strings.Contains(d, "names result 3, but @decode_stand_in_0") || len(f.States) != 2 || f.States[1].Type != "" {
		t.Errorf("disagreements %q, states %v", f.Disagreements, f.States)
	}
}

// dagPlist is a binary property list whose object i is an array holding
// object i+1 twice: n levels make 2^n leaves from about 3n bytes (the
// issue's 383-byte file reached 3.9 GB in 8 s).
func dagPlist(n int) []byte {
	b := []byte("bplist00")
	var offs []int
	for i := range n {
		offs = append(offs, len(b))
		b = append(b, 0xA2, byte(i+1), byte(i+1))
	}
	offs = append(offs, len(b))
	b = append(b, 0x09) // true
	table := len(b)
	for _, o := range offs {
		b = append(b, byte(o>>8), byte(o))
	}
	tr := make([]byte, 32)
	tr[6], tr[7] = 2, 1
	binary.BigEndian.PutUint64(tr[8:], uint64(len(offs)))
	binary.BigEndian.PutUint64(tr[24:], uint64(table))
	return append(b, tr...)
}

// Hostile manifests (issue 21 item 2): 4 MB of "(" overflowed the stack
// (a crash, 1.75 GB), the doubling DAG took 3.9 GB in 8 s, 2M one-element
// arrays more than 30 s. Each is now refused by the decoder's limits: the
// delegate is unknown, with a problem saying which limit, within a
// deadline and in bounded memory.
func TestHostileManifest(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
	}{
		{"4 MB of (", bytes.Repeat([]byte("("), 4<<20)},
		{"doubling DAG of 120 levels", dagPlist(120)},
		{"2M one-element arrays", []byte(strings.Repeat("(", 2<<20) + strings.Repeat(")", 2<<20))},
		{"2M nested <array>", []byte("<plist>" + strings.Repeat("<array>", 2<<20) + strings.Repeat("</array>", 2<<20) + "</plist>")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := statefulStandIn(t)
			setManifest(t, dir, c.in)
			var p *Package
			var err error
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			deadline(t, 60*time.Second, func() { p, err = Open(dir, Options{}) })
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes: allocated %d; %q", len(c.in), alloc, p.Problems)
			if len(p.Functions) != 0 || !strings.Contains(strings.Join(p.Problems, "\n"), "limit") {
				t.Errorf("%d functions, problems %q", len(p.Functions), p.Problems)
			}
			if bound := 4*uint64(len(c.in)) + 64<<20; alloc > bound {
				t.Errorf("allocated %d bytes reading a %d-byte manifest; the bound is %d", alloc, len(c.in), bound)
			}
		})
	}
}

// deadline runs f and fails the test when it has not returned within d.
func deadline(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("did not return within %v", d)
	}
}
