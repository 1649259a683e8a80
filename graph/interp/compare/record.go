package compare

import "github.com/anefix/anefix/graph/record"

// RecordInputs reads what a comparison needs from the two sides' records
// of a rewrite (graph/record; nil for a model anefix did not write): the
// candidate inputs that carry an externalized constant (Options.CandConstants)
// and, by state name, the net power of two by which the candidate stores
// each state relative to the reference (Options.CandStateLog2): the
// candidate's scales minus the reference's, so a reference that is itself
// a scaled rewrite is compared in its own units. The map is nil when
// neither record scales a state.
func RecordInputs(ref, cand *record.Record) ([]record.ConstantInput, map[string]int) {
	var consts []record.ConstantInput
	if cand != nil {
		consts = append(consts, cand.ConstantInputs...)
	}
	var log2 map[string]int
	for i, rec := range []*record.Record{ref, cand} {
		for name, k := range rec.StateLog2("") {
			if log2 == nil {
				log2 = map[string]int{}
			}
			log2[name] += []int{-1, 1}[i] * k
		}
	}
	return consts, log2
}
