package synth

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

// --locations debuginfo writes every located op's location as a
// #debuginfo.location that carries the same op id, source line and caller
// frames as the builtin form, with op_id numbering the ops in IR order; the
// text reads back to the same locations.
func TestDebugInfoLocations(t *testing.T) {
	for _, o := range []Options{{Arm: ArmB, StateForm: StateHandle}, {Arm: ArmE}, {Arm: ArmB, Recurrence: RecurrenceComposite}} {
		plain := gen(t, o)
		o.Locations = LocDebugInfo
		dl := gen(t, o)
		var a, b []*graph.Operation
		plain.Walk(func(op *graph.Operation) bool { a = append(a, op); return true })
		dl.Walk(func(op *graph.Operation) bool { b = append(b, op); return true })
		if len(a) != len(b) {
			t.Fatalf("%+v: %d ops vs %d", o, len(a), len(b))
		}
		n := uint64(0)
		for i := range a {
			if _, ok := a[i].Loc.(*graph.FusedLoc); !ok {
				continue
			}
			n++
			d, ok := b[i].Loc.(*graph.DialectLoc)
			if !ok {
				t.Fatalf("%s: location %T, want a dialect location", b[i].Describe(), b[i].Loc)
			}
			if !strings.HasPrefix(d.String(), "#debuginfo.location<src = loc(") {
				t.Fatalf("%s: %s", b[i].Describe(), d)
			}
			if a[i].OpID() != b[i].OpID() || a[i].Source() != b[i].Source() || graph.ShortSource(a[i].Loc) != graph.ShortSource(b[i].Loc) {
				t.Fatalf("%s: op id %q source %q, builtin form has %q %q", b[i].Describe(), b[i].OpID(), b[i].Source(), a[i].OpID(), a[i].Source())
			}
			if num, ok := graph.OpNumber(b[i].Loc); !ok || num != n {
				t.Fatalf("%s: op_id %d (%v), want %d", b[i].Describe(), num, ok, n)
			}
		}
		if n == 0 {
			t.Fatalf("%+v: no located ops", o)
		}
		text, err := mlirtext.Format(dl, mlirtext.FormPretty)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := mlirtext.Parse("dl.mlir", string(text))
		if err != nil {
			t.Fatalf("%+v: the printed module does not parse: %v", o, err)
		}
		again, _ := mlirtext.Format(back, mlirtext.FormPretty)
		if string(again) != string(text) {
			t.Errorf("%+v: dialect locations change on a text round trip", o)
		}
	}
	if _, err := Generate(Options{Arm: ArmA, Locations: "fused"}); err == nil || !strings.Contains(err.Error(), "want builtin or debuginfo") {
		t.Errorf("bad location form: %v", err)
	}
}
