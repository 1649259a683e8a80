package compare

import (
	"reflect"
	"testing"

	"github.com/anefix/anefix/graph/record"
)

// RecordInputs takes the candidate's constant inputs and, per state, the
// candidate's scales less the reference's (a reference that is itself a
// scaled rewrite is compared in its own units).
func TestRecordInputs(t *testing.T) {
	ci := record.ConstantInput{Graph: "main", Input: "w", OpID: "embedding", Resource: "w"}
	scaled := func(state string, k int) *record.Record {
		return &record.Record{Entries: record.Entries{StateScales: []record.StateScale{{Graph: "main", State: state, Log2: k}}}}
	}
	for _, c := range []struct {
		name       string
		ref, cand  *record.Record
		wantConsts []record.ConstantInput
		wantLog2   map[string]int
	}{
		{"no records", nil, nil, nil, nil},
		{"constants come from the candidate only", &record.Record{Entries: record.Entries{ConstantInputs: []record.ConstantInput{ci}}}, nil, nil, nil},
		{"the candidate's constants", nil, &record.Record{Entries: record.Entries{ConstantInputs: []record.ConstantInput{ci}}}, []record.ConstantInput{ci}, nil},
		{"the candidate scaled", nil, scaled("s", 3), nil, map[string]int{"s": 3}},
		{"the reference scaled", scaled("s", 2), nil, nil, map[string]int{"s": -2}},
		{"both scaled", scaled("s", 2), scaled("s", 5), nil, map[string]int{"s": 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			consts, log2 := RecordInputs(c.ref, c.cand)
			if !reflect.DeepEqual(consts, c.wantConsts) || !reflect.DeepEqual(log2, c.wantLog2) {
				t.Errorf("RecordInputs = %v, %v; want %v, %v", consts, log2, c.wantConsts, c.wantLog2)
			}
		})
	}
}
