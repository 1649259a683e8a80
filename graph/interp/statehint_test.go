package interp

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// An op whose result is a Core AI handle or token fails with what to do;
// other non-tensor results keep the plain message.
func TestNonTensorResultHint(t *testing.T) {
	cases := []struct {
		typ      graph.Type
		wantHint bool
	}{
		{&graph.OpaqueType{Text: "!coreai.token"}, true},
		{&graph.OpaqueType{Text: "!other.thing"}, false},
		{graph.Index, false},
	}
	for _, c := range cases {
		op := graph.NewOp("coreai.frob_token", nil, []graph.Type{c.typ}, nil, nil)
		_, err := resultElem(op, 0)
		if err == nil {
			t.Fatalf("%s: no error", c.typ)
		}
		if got := strings.Contains(err.Error(), "coreai.read_handle"); got != c.wantHint || !strings.Contains(err.Error(), c.typ.String()) {
			t.Errorf("%s: %v (hint %v, want %v)", c.typ, err, got, c.wantHint)
		}
	}
}
