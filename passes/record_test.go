package passes

import (
	"reflect"
	"testing"

	"github.com/anefix/anefix/graph/record"
)

// Result.Record gathers the passes' record entries in run order, names
// each I/O change by its pass, says each state scale in words, and keeps
// the lists a record always has non-nil (they are written as []).
func TestResultRecord(t *testing.T) {
	ext := record.ConstantInput{Graph: "main", Input: "w", Index: 2, OpID: "embedding", OpName: "coreai.constant", Resource: "w", Type: "tensor<2xf16>", Shape: []int64{2}, DType: "f16", Bytes: 4}
	cases := []struct {
		name  string
		steps []StepResult
		want  record.Record
	}{
		{"no pass", nil, record.Record{Tool: "t", Passes: []string{}, Entries: record.Entries{IOChanges: []record.IOChange{}, States: []record.State{}}}},
		{"a pass that changed nothing", []StepResult{{Pass: "dce", Change: &Change{OpsRemoved: 3}}},
			record.Record{Tool: "t", Passes: []string{"dce"}, Entries: record.Entries{IOChanges: []record.IOChange{}, States: []record.State{}}}},
		{"entries of several passes", []StepResult{
			{Pass: "promote-states", Change: &Change{Entries: record.Entries{
				IOChanges: []record.IOChange{{Graph: "main", Port: "s", Before: "tensor<2xf16>", After: "tensor<2xf16>", Why: "state"}},
				States:    []record.State{{Graph: "main", Input: "s", Output: "s_out"}}}}},
			{Pass: "externalize-constant", Change: &Change{Entries: record.Entries{ConstantInputs: []record.ConstantInput{ext},
				IOChanges: []record.IOChange{{Graph: "main", Port: "w", After: "tensor<2xf16>", Why: "new input"}}}}},
			{Pass: "scale-state", Change: &Change{Entries: record.Entries{StateScales: []record.StateScale{{Graph: "main", State: "s", Log2: 3, Form: "attribute"}}}}},
			{Pass: "states-as-outputs", Change: &Change{Entries: record.Entries{PlainStates: []record.State{{Graph: "main", Input: "c", Output: "c_out"}}}}},
		}, record.Record{Tool: "t", Passes: []string{"promote-states", "externalize-constant", "scale-state", "states-as-outputs"},
			Entries: record.Entries{
				IOChanges: []record.IOChange{
					{Pass: "promote-states", Graph: "main", Port: "s", Before: "tensor<2xf16>", After: "tensor<2xf16>", Why: "state"},
					{Pass: "externalize-constant", Graph: "main", Port: "w", After: "tensor<2xf16>", Why: "new input"}},
				States:         []record.State{{Graph: "main", Input: "s", Output: "s_out"}},
				PlainStates:    []record.State{{Graph: "main", Input: "c", Output: "c_out"}},
				ConstantInputs: []record.ConstantInput{ext},
				StateScales: []record.StateScale{{Graph: "main", State: "s", Log2: 3, Form: "attribute",
					Note: "stored = value × 2^-3: multiply by 2^-3 when setting the state, by 2^3 when reading it"}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Steps: c.steps}
			if got := r.Record("t"); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Record =\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}
