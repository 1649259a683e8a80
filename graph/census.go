package graph

// ElementTypeCounts counts the values defined under root (op results and
// block arguments, nested regions included) by element type: "f16", "si32",
// "!coreai.token", or "<none>" for a value without a type.
func ElementTypeCounts(root *Operation) map[string]int64 {
	c := map[string]int64{}
	count := func(v *Value) {
		if v.typ == nil {
			c["<none>"]++
			return
		}
		c[ElementType(v.typ).String()]++
	}
	root.Walk(func(op *Operation) bool {
		for _, r := range op.Results() {
			count(r)
		}
		for _, reg := range op.Regions {
			for _, b := range reg.Blocks {
				for _, a := range b.args {
					count(a)
				}
			}
		}
		return true
	})
	return c
}
