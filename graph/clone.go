package graph

// Clone returns a detached deep copy of op. Operands are looked up in
// mapping (values defined inside op map to their copies; values not in the
// map are used as they are), and the copies of op's results and nested
// values are added to mapping.
func (op *Operation) Clone(mapping map[*Value]*Value) *Operation {
	if mapping == nil {
		mapping = map[*Value]*Value{}
	}
	return op.clone(mapping, map[*Block]*Block{})
}

func (op *Operation) clone(mapping map[*Value]*Value, blocks map[*Block]*Block) *Operation {
	countWork(workOps, 1)
	lookup := func(v *Value) *Value {
		if nv, ok := mapping[v]; ok {
			return nv
		}
		return v
	}
	ops := make([]*Value, op.NumOperands())
	for i, v := range op.Operands() {
		ops[i] = lookup(v)
	}
	c := &Operation{Name: op.Name, Attrs: op.Attrs, Props: op.Props, Loc: op.Loc}
	c.SetOperands(ops)
	for _, r := range op.Results() {
		nr := c.AddResult(r.typ)
		nr.Loc = r.Loc // a constant's SSA name from the text (TextName)
		mapping[r] = nr
	}
	for _, r := range op.Regions {
		nr := c.AddRegion()
		for _, b := range r.Blocks {
			nb := nr.AddBlock(nil, nil)
			blocks[b] = nb
			for _, a := range b.args {
				mapping[a] = nb.AddArgument(a.typ, a.Loc)
			}
		}
	}
	for ri, r := range op.Regions {
		for bi, b := range r.Blocks {
			nb := c.Regions[ri].Blocks[bi]
			for o := b.first; o != nil; o = o.next {
				nb.Append(o.clone(mapping, blocks))
			}
		}
	}
	if succ := op.Successors(); len(succ) > 0 {
		cs := make([]*Block, len(succ))
		for i, s := range succ {
			if nb, ok := blocks[s]; ok {
				cs[i] = nb
			} else {
				cs[i] = s
			}
		}
		c.successors = &cs
	}
	return c
}
