package aimodelc

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph"
)

// The placement dialect's region type attribute, as the corpus's
// specialized graphs spell it: #placement.region_type<GPU>.
var regionTypeRe = regexp.MustCompile(`^#placement\.region_type<([A-Za-z0-9_]+)>$`)

// Region symbols in a specialized graph: <fn>_<k>_<TYPE>_region_<i>, where
// <fn>_<k> is the entry function's symbol (main_…_0 in the corpus). The
// corpus's decoder also has <…>_region_0_nested_<n> symbols; they are
// parts of region 0, not regions of the entry function (see graphPlacement).
var regionSymRe = regexp.MustCompile(`^(.+)_([A-Z][A-Za-z0-9]*)_region_([0-9]+)(_nested_[0-9]+)?$`)

// regionCall is one op carrying a region_type attribute.
type regionCall struct {
	Type   string // "GPU", "ANE", … as written in the attribute
	Callee string // the region's symbol (callee), or the op's own sym_name
	// Caller is the symbol of the function the op sits in ("" when it sits
	// in none).
	Caller string
	Op     string // the op's name, e.g. placement.region_call
}

// graphPlacement is what a specialized graph says about its regions.
type graphPlacement struct {
	// Calls are the ops carrying region_type, in walk order.
	Calls []regionCall
	// Symbols are the function symbols whose name has the region form,
	// sorted, with their parsed parts.
	Symbols []regionSymbol
	// FuncAttrs maps a function symbol to its discardable attributes.
	FuncAttrs map[string]*graph.DictAttr
	// Signatures maps a function symbol to its inputs and results.
	Signatures map[string]signature
	// ModuleAttrs are the top-level op's attributes; the corpus's carry the
	// compilation descriptor again (mps.preferredDevice = 1 : ui64, …).
	ModuleAttrs *graph.DictAttr
	// Problems are region_type values or property blobs this reader cannot
	// read; they make the counts they touch unknown.
	Problems []string
	// FXTypes maps an entry function's symbol to the FX node names its
	// region functions' ops carry (graph.FXNames), each with the region
	// types it sits in.
	FXTypes map[string]map[string][]string
}

// signature is what a function's body says about its interface: the types
// of its entry block's arguments, and the number of values its body's
// terminator returns (-1 when the body is not a single block ending in an
// op without regions, so the count is not read).
type signature struct {
	Args    []string
	Results int
}

// regionSymbol is a symbol of the form <owner>_<TYPE>_region_<i>[_nested_<n>].
type regionSymbol struct {
	Name, Owner, Type, Index string
	Nested                   bool
}

// readPlacement walks a specialized graph for region_type attributes and
// region symbols. It only reads the IR.
func readPlacement(m *graph.Module) *graphPlacement {
	gp := &graphPlacement{FuncAttrs: map[string]*graph.DictAttr{}, Signatures: map[string]signature{}, ModuleAttrs: m.Op.Attrs,
		FXTypes: map[string]map[string][]string{}}
	m.Walk(func(op *graph.Operation) bool {
		gp.addFXNames(op)
		if s, ok := op.Inherent("sym_name").(*graph.StringAttr); ok && len(op.Regions) > 0 {
			gp.FuncAttrs[s.Value] = op.Attrs
			gp.Signatures[s.Value] = signatureOf(op)
			if p := regionSymRe.FindStringSubmatch(s.Value); p != nil {
				gp.Symbols = append(gp.Symbols, regionSymbol{Name: s.Value, Owner: p[1], Type: p[2], Index: p[3], Nested: p[4] != ""})
			}
		}
		rt := op.Inherent("region_type")
		if rt == nil {
			if op.Dialect() == "placement" && op.Props != nil {
				if _, isDict := op.Props.(*graph.DictAttr); !isDict {
					gp.Problems = append(gp.Problems, fmt.Sprintf("%s: its properties are in a layout anefix cannot read, so a region type it may carry is unknown", op.Name))
				}
			}
			return true
		}
		p := regionTypeRe.FindStringSubmatch(rt.String())
		if p == nil {
			gp.Problems = append(gp.Problems, fmt.Sprintf("%s: region_type = %s is not #placement.region_type<…>", op.Name, rt.String()))
			return true
		}
		c := regionCall{Type: p[1], Op: op.Name, Caller: enclosingSymbol(op)}
		switch v := op.Inherent("callee").(type) {
		case *graph.SymbolRefAttr:
			c.Callee = v.Root
		case *graph.StringAttr:
			c.Callee = v.Value
		default:
			if s, ok := op.Inherent("sym_name").(*graph.StringAttr); ok {
				c.Callee = s.Value
			}
		}
		gp.Calls = append(gp.Calls, c)
		return true
	})
	sort.Slice(gp.Symbols, func(i, j int) bool { return gp.Symbols[i].Name < gp.Symbols[j].Name })
	return gp
}

// addFXNames records the FX node names of op under the region function
// it sits in, if any (the nearest enclosing symbol of the region form).
func (gp *graphPlacement) addFXNames(op *graph.Operation) {
	var rs []string
	for o := op.ParentOp(); o != nil && rs == nil; o = o.ParentOp() {
		if s, ok := o.Inherent("sym_name").(*graph.StringAttr); ok {
			rs = regionSymRe.FindStringSubmatch(s.Value)
			if rs == nil {
				return // in a function that is no region
			}
		}
	}
	if rs == nil {
		return
	}
	owner, typ := rs[1], rs[2]
	for _, name := range graph.FXNames(op.Loc) {
		byName := gp.FXTypes[owner]
		if byName == nil {
			byName = map[string][]string{}
			gp.FXTypes[owner] = byName
		}
		if !slices.Contains(byName[name], typ) {
			byName[name] = append(byName[name], typ)
			slices.Sort(byName[name])
		}
	}
}

func signatureOf(op *graph.Operation) signature {
	sig := signature{Results: -1}
	blocks := op.Regions[0].Blocks
	if len(blocks) == 0 {
		return sig
	}
	for _, a := range blocks[0].Args() {
		sig.Args = append(sig.Args, a.Type().String())
	}
	if ops := blocks[0].Ops(); len(blocks) == 1 && len(ops) > 0 && len(ops[len(ops)-1].Regions) == 0 {
		sig.Results = ops[len(ops)-1].NumOperands()
	}
	return sig
}

// enclosingSymbol is the sym_name of the nearest enclosing op that has one.
func enclosingSymbol(op *graph.Operation) string {
	for o := op.ParentOp(); o != nil; o = o.ParentOp() {
		if s, ok := o.Inherent("sym_name").(*graph.StringAttr); ok {
			return s.Value
		}
	}
	return ""
}

// typeCounts are the regions of one entry function by type, from one source.
type typeCounts map[string][]string // type -> region symbols, sorted, distinct

func (t typeCounts) add(typ, sym string) {
	for _, s := range t[typ] {
		if s == sym {
			return
		}
	}
	t[typ] = append(t[typ], sym)
	sort.Strings(t[typ])
}

// callsOf counts the region_type entries directly in the entry function
// sym (calls made from inside another region are that region's parts).
func (gp *graphPlacement) callsOf(sym string) (typeCounts, map[string]int) {
	tc := typeCounts{}
	nested := map[string]int{}
	for _, c := range gp.Calls {
		switch {
		case c.Caller == sym:
			tc.add(c.Type, c.Callee)
		case strings.HasPrefix(c.Caller, sym+"_"):
			nested[c.Type]++
		}
	}
	return tc, nested
}

// hasSymbol reports whether the graph defines a function named sym.
func (gp *graphPlacement) hasSymbol(sym string) bool {
	_, ok := gp.FuncAttrs[sym]
	return ok
}

// totalCalls is the number of region_type entries directly in sym.
func (gp *graphPlacement) totalCalls(sym string) int {
	n := 0
	for _, c := range gp.Calls {
		if c.Caller == sym {
			n++
		}
	}
	return n
}

// symbolsOf counts the top-level region symbols named after sym.
func (gp *graphPlacement) symbolsOf(sym string) typeCounts {
	tc := typeCounts{}
	for _, s := range gp.Symbols {
		if s.Owner == sym && !s.Nested {
			tc.add(s.Type, s.Name)
		}
	}
	return tc
}

// moduleInt reads an integer attribute of the top-level op.
func (gp *graphPlacement) moduleInt(name string) (int64, bool) {
	if v, ok := gp.ModuleAttrs.Get(name).(*graph.IntegerAttr); ok && v.Big == nil {
		return v.Value, true
	}
	return 0, false
}
