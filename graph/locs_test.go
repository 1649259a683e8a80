package graph

import (
	"fmt"
	"testing"
)

// TestDialectLocReaders: the FX name, numeric op id and source line read
// from #debuginfo.location bodies. The body syntax is not public, so the
// cases are the shapes derived from coreai_torch/_debug_locations.py (keyword
// or positional parameters, metadata in any order, the unknown-source form
// that keeps only an op_id) plus bodies that carry nothing readable, which
// must read as absent rather than fail.
func TestDialectLocReaders(t *testing.T) {
	dl := func(body string) Loc { return &DialectLoc{Attr: &OpaqueAttr{Text: body}} }
	tests := []struct {
		name   string
		loc    Loc
		id     string
		num    uint64
		hasNum bool
		src    string
	}{
		{"keyword params", dl(`#debuginfo.location<src = loc("/w/model.py":12:0), scope = unit, metadata = [#debuginfo.metadata<name = "sources", data = [{id = 1 : ui64, identifiers = ["add"], name = "torch"}]>, #debuginfo.metadata<name = "op_id", data = {type = "torch", value = 1 : ui64}>, #debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 7 : ui64}>]>`),
			"add", 7, true, "/w/model.py:12"},
		{"coreai op_id first", dl(`#debuginfo.location<loc("m.py":3:4), unit, [#debuginfo.metadata<"op_id", {value = 9 : ui64, type = "coreai"}>, #debuginfo.metadata<"sources", [{identifiers = ["relu_1"], name = "torch", id = 2 : ui64}]>]>`),
			"relu_1", 9, true, "m.py:3"},
		{"only a torch op_id", dl(`#debuginfo.location<src = loc("m.py":5:0), metadata = [#debuginfo.metadata<name = "op_id", data = {type = "torch", value = 4 : ui64}>]>`),
			"", 4, true, "m.py:5"},
		{"unknown source", dl(`#debuginfo.location<src = loc(unknown), scope = unit, metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 0 : ui64}>]>`),
			"", 0, true, ""},
		{"fused_with frames: the first is the source", dl(`#debuginfo.location<src = loc("/w/inner.py":8:0), scope = #debuginfo.subprogram<name = "f", file = #debuginfo.file<filename = "inner.py", directory = "/w", sha256_sum = "">>, fused_with = [#debuginfo.location<src = loc("/w/outer.py":30:0), scope = unit>]>`),
			"", 0, false, "/w/inner.py:8"},
		{"escaped identifier", dl(`#debuginfo.location<metadata = [#debuginfo.metadata<name = "sources", data = [{identifiers = ["a\22b"]}]>]>`),
			"a\"b", 0, false, ""},
		{"nothing readable", dl(`#debuginfo.location<opaque_blob = "0xDEAD", value = 3>`), "", 0, false, ""},
		{"other dialect", dl(`#aicode.loc<7>`), "", 0, false, ""},
		{"nil attribute", &DialectLoc{}, "", 0, false, ""},
		{"inside a name location", &NameLoc{Name: "outer", Child: dl(`#debuginfo.location<src = loc("n.py":2:0), metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 5 : ui64}>]>`)},
			"outer", 5, true, "n.py:2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OpID(tc.loc); got != tc.id {
				t.Errorf("OpID = %q, want %q", got, tc.id)
			}
			n, ok := OpNumber(tc.loc)
			if ok != tc.hasNum || n != tc.num {
				t.Errorf("OpNumber = %d, %v; want %d, %v", n, ok, tc.num, tc.hasNum)
			}
			if got := Source(tc.loc); got != tc.src {
				t.Errorf("Source = %q, want %q", got, tc.src)
			}
			label := tc.id
			switch {
			case tc.hasNum && tc.id != "":
				label = fmt.Sprintf("%s (op_id %d)", tc.id, tc.num)
			case tc.hasNum:
				label = fmt.Sprintf("op_id %d", tc.num)
			}
			if got := OpLabel(tc.loc); got != label {
				t.Errorf("OpLabel = %q, want %q", got, label)
			}
		})
	}
}

// TestDialectLocPrintsVerbatim: a dialect location prints as the attribute
// it was read as, so it survives any number of prints.
func TestDialectLocPrintsVerbatim(t *testing.T) {
	body := `#debuginfo.location<src = loc("m.py":1:0), scope = unit>`
	if got := (&DialectLoc{Attr: &OpaqueAttr{Text: body}}).String(); got != body {
		t.Errorf("String() = %q", got)
	}
}

// TestFXNames: every debuginfo metadata's first identifier, in pre-order,
// once each; name locations are not FX names. The shape of the first case
// is an op of the real connector package's specialized graph
// (../shared/corpus/apple-compiled), where OpID reads the name "coreai".
func TestFXNames(t *testing.T) {
	md := func(id string) *OpaqueAttr {
		return &OpaqueAttr{Text: `#debuginfo.metadata<sources = [{identifiers = ["` + id + `"], name = "torch"}]>`}
	}
	file := &FileLoc{File: "m.py", Line: 3}
	for _, c := range []struct {
		name string
		loc  Loc
		want []string
	}{
		{"name location fused with metadata", &FusedLoc{Locs: []Loc{&NameLoc{Name: "coreai", Child: file}, &FusedLoc{Metadata: md("view"), Locs: []Loc{file}}}}, []string{"view"}},
		{"two, one repeated", &FusedLoc{Metadata: md("addmm"), Locs: []Loc{&FusedLoc{Metadata: md("view")}, &FusedLoc{Metadata: md("addmm")}}}, []string{"addmm", "view"}},
		{"call site", &CallSiteLoc{Callee: &FusedLoc{Metadata: md("mul")}, Caller: &FusedLoc{Metadata: md("mul_1")}}, []string{"mul", "mul_1"}},
		{"dialect location", &DialectLoc{Attr: &OpaqueAttr{Text: `#debuginfo.location<metadata = [#debuginfo.metadata<name = "sources", data = [{identifiers = ["add"]}]>]>`}}, []string{"add"}},
		{"a name alone", &NameLoc{Name: "addmm"}, nil},
		{"none", file, nil},
	} {
		if got := FXNames(c.loc); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
