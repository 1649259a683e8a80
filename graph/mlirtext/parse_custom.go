package mlirtext

import (
	"strings"

	"github.com/anefix/anefix/graph"
)

// Custom (printed) syntax of the ops coreai-torch prints, plus the builtin
// and func ops plain MLIR modules use (testdata/mlir/coreai/README.md lists
// the forms and where each spelling comes from).

// opAliases maps names MLIR lets you write without their dialect.
var opAliases = map[string]string{
	"module": "builtin.module",
	"return": "func.return",
	"call":   "func.call",
}

// toOps print their signature with `to` instead of `->` (coreai-torch's
// tests: cast, expand_dims, shrink_dims and the keyword-operand ops).
var toOps = map[string]bool{
	"coreai.cast":              true,
	"coreai.expand_dims":       true,
	"coreai.shrink_dims":       true,
	"coreai.slice_update":      true,
	"coreai.gather_nd":         true,
	"coreai.gather_along_axis": true,
	"coreai.scatter_nd":        true,
}

// keywordOperands lists, per op, the keywords that separate its operands
// after the first (`gather_along_axis %x at %i along %a`); a keyword ending
// in "(" introduces a parenthesized list of all remaining operands
// (`slice_update %x with %u at (%b, %e, %s)`).
var keywordOperands = map[string][]string{
	"coreai.gather_nd":         {"at"},
	"coreai.gather_along_axis": {"at", "along"},
	"coreai.slice_update":      {"with", "at("},
	"coreai.scatter_nd":        {"with", "at"},
}

// regionOps lists the ops printed with regions after their operands and
// the keyword before each region but the first (`coreai.if %c {…} else
// {…}`). Regions after the first may be absent. coreai-torch's tests show
// if/else and scatter_nd's combiner; while's `} do {` is shown, the rest of
// its form is a guess (testdata/mlir/coreai/while.mlir).
var regionOps = map[string][]string{
	"coreai.if":         {"", "else"},
	"coreai.while":      {"", "do"},
	"coreai.scatter_nd": {""},
}

// parenSingleInput are the ops whose assembly format prints the operand
// types as a parenthesized list even for one operand (`coreai.relu %x :
// (T) -> T`); the others print one operand type bare (`coreai.abs %x : T ->
// T`). Observed in coreai-torch's tests (tests/ops/test_ops_ir.py); an op
// missing here prints bare.
var parenSingleInput = map[string]bool{
	"coreai.relu":           true,
	"coreai.sigmoid":        true,
	"coreai.real_part":      true,
	"coreai.imaginary_part": true,
}

// returnOps are terminators printed `name %a, %b : T, U`.
var returnOps = map[string]bool{
	"coreai.output":    true,
	"func.return":      true,
	"coreai.yield":     true,
	"coreai.condition": true,
}

// enumAttrText is the generic spelling anefix gives an enum attribute that
// the custom form prints stripped before the colon (`mode = <constant>`).
// GUESS: the attribute's real mnemonic is not public; coreai-torch's one
// fully printed enum is `interpolation_mode = #coreai.interpolation_mode<…>`,
// so the attribute name is used as mnemonic: `#coreai.mode<constant>`.
func enumAttrText(name, body string) string { return "#coreai." + name + "<" + body + ">" }

// enumAttrBody returns the `<…>` part of an attribute named name when it has
// the enumAttrText spelling, so it prints back stripped.
func enumAttrBody(name string, a graph.Attr) (string, bool) {
	o, ok := a.(*graph.OpaqueAttr)
	prefix := "#coreai." + name + "<"
	if !ok || !strings.HasPrefix(o.Text, prefix) || !strings.HasSuffix(o.Text, ">") {
		return "", false
	}
	return o.Text[len(prefix)-1:], true
}

func (p *parser) parseCustomOp(nResults int) *graph.Operation {
	namePos := p.tok.Pos
	name := p.tok.Text
	if full, ok := opAliases[name]; ok {
		name = full
	}
	p.next()
	switch name {
	case "builtin.module":
		return p.parseModuleOp()
	case "coreai.graph", "func.func":
		return p.parseFuncOp(name)
	case "coreai.invoke", "func.call":
		return p.parseCallOp(name)
	case "coreai.constant":
		return p.parseConstantOp()
	case "coreai.metal4_kernel":
		return p.parseMetalKernel(nResults)
	}
	if returnOps[name] {
		return p.parseReturnOp(name)
	}
	if strings.HasPrefix(name, "coreai.") {
		return p.parseUniformOp(name, nResults)
	}
	p.failAt(namePos, "custom syntax of op '%s' is not supported; write it in generic form (mlir-opt --mlir-print-op-generic)", name)
	return nil
}

func (p *parser) parseModuleOp() *graph.Operation {
	op := graph.NewOp("builtin.module", nil, nil, nil, nil)
	if p.is(atIdent) {
		s, ok := symbolText(p.tok)
		if !ok {
			p.fail("invalid symbol name")
			return nil
		}
		p.next()
		op.Props = graph.Dict(graph.NamedAttr{Name: graph.AttrSymName, Value: graph.Str(s)})
	}
	if p.acceptKeyword("attributes") {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	p.parseRegion(op.AddRegion(), nil)
	if p.ok() && len(op.Regions[0].Blocks) == 0 {
		op.Regions[0].AddBlock(nil, nil) // `module {}` has an empty body block
	}
	return op
}

// parseFuncOp: [visibility] [noinline] @name(args) [-> results] [attributes {…}] [{body}]
func (p *parser) parseFuncOp(name string) *graph.Operation {
	op := graph.NewOp(name, nil, nil, nil, nil)
	var props []graph.NamedAttr
	for p.is(bareIdent) {
		switch {
		case p.tok.Text == "private" || p.tok.Text == "public" || p.tok.Text == "nested":
			props = append(props, graph.NamedAttr{Name: graph.AttrVisibility, Value: graph.Str(p.tok.Text)})
		case p.tok.Text == "noinline" && name == "coreai.graph":
			props = append(props, graph.NamedAttr{Name: attrNoInline, Value: &graph.UnitAttr{}})
		default:
			p.fail("unexpected '%s' before the symbol name of %s", p.tok.Text, name)
			return nil
		}
		p.next()
	}
	if !p.is(atIdent) {
		p.fail("expected symbol name (@name) of %s", name)
		return nil
	}
	sym, ok := symbolText(p.tok)
	if !ok {
		p.fail("invalid symbol name")
		return nil
	}
	p.next()
	props = append(props, graph.NamedAttr{Name: graph.AttrSymName, Value: graph.Str(sym)})

	// Arguments: named (%a: T {attrs} loc(…)) for a body, or bare types for a declaration.
	var args []*entryArg
	var inTypes []graph.Type
	var argAttrs []graph.Attr
	named := -1
	p.parseCommaList(lParen, rParen, "'(' to start the argument list", func() {
		isNamed := p.is(percentIdent)
		if named == -1 {
			named = map[bool]int{true: 1, false: 0}[isNamed]
		} else if (named == 1) != isNamed {
			p.fail("expected all arguments named or all unnamed")
			return
		}
		a := &entryArg{pos: p.tok.Pos}
		if isNamed {
			a.name = p.tok.Text[1:]
			p.next()
			if !p.expect(colon, "':' and the argument type") {
				return
			}
		}
		a.typ = p.parseType()
		var d graph.Attr = &graph.DictAttr{}
		if p.is(lBrace) {
			if dd := p.parseDict(); dd != nil {
				d = dd
			}
		}
		if p.isKeyword("loc") {
			if !isNamed {
				p.fail("an unnamed argument cannot have a location")
				return
			}
			a.loc = p.parseLoc(&a.loc)
			a.hasL = true
		}
		inTypes = append(inTypes, a.typ)
		argAttrs = append(argAttrs, d)
		args = append(args, a)
	})
	var outTypes []graph.Type
	var resAttrs []graph.Attr
	if p.accept(arrow) {
		inParens := false
		one := func() {
			outTypes = append(outTypes, p.parseType())
			var d graph.Attr = &graph.DictAttr{}
			// Without parentheses a '{' starts the body, not result attributes.
			if inParens && p.is(lBrace) {
				if dd := p.parseDict(); dd != nil {
					d = dd
				}
			}
			resAttrs = append(resAttrs, d)
		}
		if p.is(lParen) { // a result list; a function-typed result needs ((…) -> …)
			inParens = true
			p.parseCommaList(lParen, rParen, "'('", one)
		} else {
			one()
		}
	}
	if !p.ok() {
		return nil
	}
	props = append(props, graph.NamedAttr{Name: graph.AttrFunctionType, Value: &graph.TypeAttr{Type: &graph.FunctionType{Inputs: inTypes, Results: outTypes}}})
	if anyNonEmpty(argAttrs) {
		props = append(props, graph.NamedAttr{Name: graph.AttrArgAttrs, Value: &graph.ArrayAttr{Elems: argAttrs}})
	}
	if anyNonEmpty(resAttrs) {
		props = append(props, graph.NamedAttr{Name: graph.AttrResAttrs, Value: &graph.ArrayAttr{Elems: resAttrs}})
	}
	op.Props = graph.Dict(props...)
	if p.acceptKeyword("attributes") {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	r := op.AddRegion()
	if p.is(lBrace) {
		if named != 1 && len(args) > 0 {
			p.fail("a %s with a body needs named arguments (%%arg0: type)", name)
			return nil
		}
		if args == nil {
			args = []*entryArg{}
		}
		p.parseRegion(r, args)
	} else if named == 1 {
		p.fail("expected '{' to begin the body of @%s (named arguments need a body)", sym)
		return nil
	}
	return op
}

func anyNonEmpty(ds []graph.Attr) bool {
	for _, d := range ds {
		if dd, ok := d.(*graph.DictAttr); ok && dd.Len() > 0 {
			return true
		}
	}
	return false
}

// attrNoInline is the unit attribute the printed `noinline` keyword stands
// for (a guess: no public source names it).
const attrNoInline = "no_inline"

// parseOperandList reads `%a, %b#1, …` (possibly empty).
func (p *parser) parseOperandList() []ssaUse {
	var uses []ssaUse
	for p.is(percentIdent) {
		u, ok := p.parseSSAUse()
		if !ok {
			return nil
		}
		uses = append(uses, u)
		if !p.accept(comma) {
			break
		}
	}
	return uses
}

// parseTypeListNoParens reads `T, U, …`.
func (p *parser) parseTypeListNoParens() []graph.Type {
	var ts []graph.Type
	for p.ok() {
		ts = append(ts, p.parseType())
		if !p.accept(comma) {
			break
		}
	}
	return ts
}

// parseReturnOp: `coreai.output %a, %b : T, U` or bare `coreai.output`.
func (p *parser) parseReturnOp(name string) *graph.Operation {
	op := graph.NewOp(name, nil, nil, nil, nil)
	uses := p.parseOperandList()
	if p.is(lBrace) {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	if len(uses) == 0 {
		return op
	}
	pos := p.tok.Pos
	if !p.expect(colon, "':' and the operand types") {
		return nil
	}
	types := p.parseTypeListNoParens()
	if !p.ok() {
		return nil
	}
	op.SetOperands(p.resolveAll(uses, types, pos))
	return op
}

// parseCallOp: `coreai.invoke @f(%a, %b) [{attrs}] : (T, U) -> V`.
func (p *parser) parseCallOp(name string) *graph.Operation {
	if !p.is(atIdent) {
		p.fail("expected callee symbol (@name)")
		return nil
	}
	callee := p.parseSymbolRef()
	if !p.ok() {
		return nil
	}
	var uses []ssaUse
	p.parseCommaList(lParen, rParen, "'(' to start the call operands", func() {
		if u, ok := p.parseSSAUse(); ok {
			uses = append(uses, u)
		}
	})
	op := graph.NewOp(name, nil, nil, nil, nil)
	op.Props = graph.Dict(graph.NamedAttr{Name: "callee", Value: callee})
	if p.is(lBrace) {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	pos := p.tok.Pos
	if !p.expect(colon, "':' and the callee's function type") {
		return nil
	}
	t := p.parseType()
	ft, ok := t.(*graph.FunctionType)
	if !p.ok() {
		return nil
	}
	if !ok {
		p.failAt(pos, "expected function type after ':' of a call")
		return nil
	}
	op.SetOperands(p.resolveAll(uses, ft.Inputs, pos))
	for _, rt := range ft.Results {
		op.AddResult(rt)
	}
	return op
}

// parseConstantOp: `coreai.constant dense<…> : T`; the attribute's type is
// the result type.
func (p *parser) parseConstantOp() *graph.Operation {
	p.lastAttrType = nil
	pos := p.tok.Pos
	a := p.parseAttr()
	if !p.ok() {
		return nil
	}
	t := p.lastAttrType
	if t == nil {
		p.failAt(pos, "expected a typed attribute (`dense<…> : tensor<…>`) as constant value")
		return nil
	}
	op := graph.NewOp("coreai.constant", nil, []graph.Type{t}, nil, nil)
	op.Props = graph.Dict(graph.NamedAttr{Name: "value", Value: a})
	return op
}

// parseUniformOp: `coreai.op %a, %b [kw = <enum>]… [{attrs}] : (T, U) -> V`
// (or `T -> V`, `… to V`, `: V` without operands), with the keyword
// operands of keywordOperands and the regions of regionOps.
func (p *parser) parseUniformOp(name string, nResults int) *graph.Operation {
	var uses []ssaUse
	add := func() {
		if u, ok := p.parseSSAUse(); ok {
			uses = append(uses, u)
		}
	}
	if kws, ok := keywordOperands[name]; ok {
		add()
		for _, kw := range kws {
			if !p.ok() {
				return nil
			}
			if paren := strings.HasSuffix(kw, "("); paren {
				kw = kw[:len(kw)-1]
				if !p.acceptKeyword(kw) {
					p.fail("expected '%s' in %s", kw, name)
					return nil
				}
				p.parseCommaList(lParen, rParen, "'('", add)
				continue
			}
			if !p.acceptKeyword(kw) && !(kw == "at" && name == "coreai.gather_nd" && p.accept(comma)) {
				p.fail("expected '%s' in %s", kw, name)
				return nil
			}
			add()
		}
	} else {
		uses = p.parseOperandList()
	}
	if !p.ok() {
		return nil
	}
	op := graph.NewOp(name, nil, nil, nil, nil)
	// Enum attributes printed stripped: `mode = <constant>`.
	var props []graph.NamedAttr
	for p.is(bareIdent) && p.peekIs(equal) {
		key := p.tok.Text
		p.next()
		p.next() // '='
		if !p.is(less) {
			p.fail("expected '<' and an enum value after '%s ='", key)
			return nil
		}
		close, err := p.lex.BalancedBody(p.tok.Pos + 1)
		if err != nil {
			p.err = err
			return nil
		}
		body := p.src.Text[p.tok.Pos : close+1]
		p.lex.Reset(close + 1)
		p.next()
		props = append(props, graph.NamedAttr{Name: key, Value: &graph.OpaqueAttr{Text: enumAttrText(key, body[1:len(body)-1])}})
	}
	if len(props) > 0 {
		op.Props = graph.Dict(props...)
	}
	if kws, ok := regionOps[name]; ok {
		for i, kw := range kws {
			if kw != "" && !p.acceptKeyword(kw) {
				break
			}
			if i > 0 || p.is(lBrace) {
				p.parseRegion(op.AddRegion(), nil)
			}
			if !p.ok() {
				return nil
			}
		}
	}
	return p.finishUniform(op, uses, nResults)
}

// peekIs reports whether the token after the current one has kind k.
func (p *parser) peekIs(k kind) bool {
	save := p.lex.Pos()
	t := p.lex.Next()
	p.lex.Reset(save)
	return t.Kind == k
}

// parseSigType is a type in a custom op signature, where a state handle is
// printed stripped of its dialect prefix: `<tensor<1x4xf32>>` is
// `!coreai.handle<tensor<1x4xf32>>` (coreai-torch's read_handle/write_handle).
func (p *parser) parseSigType() graph.Type {
	if !p.is(less) {
		return p.parseType()
	}
	close, err := p.lex.BalancedBody(p.tok.Pos + 1)
	if err != nil {
		p.err = err
		return nil
	}
	t := &graph.OpaqueType{Text: "!coreai.handle" + p.src.Text[p.tok.Pos:close+1]}
	p.lex.Reset(close + 1)
	p.next()
	return t
}

func (p *parser) finishUniform(op *graph.Operation, uses []ssaUse, nResults int) *graph.Operation {
	if !p.ok() {
		return nil
	}
	name := op.Name
	if p.is(lBrace) {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	pos := p.tok.Pos
	if !p.is(colon) {
		p.failAt(p.prevEnd, "expected ':' and the op's type signature, found %s", describe(p.tok))
		return nil
	}
	p.next()
	var ins []graph.Type
	parens := p.is(lParen)
	if parens {
		p.parseCommaList(lParen, rParen, "'('", func() { ins = append(ins, p.parseSigType()) })
	} else {
		ins = []graph.Type{p.parseSigType()}
	}
	if !p.ok() {
		return nil
	}
	var outs []graph.Type
	switch {
	case p.accept(arrow) || p.acceptKeyword("to"):
		outs = p.parseResultTypes()
	case len(uses) == 0 && !parens:
		// No operands: the signature is the result type alone
		// (`coreai.create_token : !coreai.token`).
		outs, ins = ins, nil
	default:
		p.failAt(p.prevEnd, "expected '->' or 'to' and the result type")
		return nil
	}
	if !p.ok() {
		return nil
	}
	if len(outs) != nResults {
		p.failAt(pos, "%s has %d result types but binds %d results", name, len(outs), nResults)
		return nil
	}
	op.SetOperands(p.resolveAll(uses, ins, pos))
	for _, t := range outs {
		op.AddResult(t)
	}
	return op
}

// metalKernelGroups are coreai.metal4_kernel's operand groups, in order
// (coreai-torch's tests/dsl/test_custom_kernels.py): `kernel_args(%a, %b),
// threads_per_grid %g, threads_per_thread_group %t, result_shapes(%s)`; a
// group marked "(" is a parenthesized list, the others one operand.
var metalKernelGroups = []string{"kernel_args(", "threads_per_grid", "threads_per_thread_group", "result_shapes("}

// attrSegmentSizes is MLIR's property for the sizes of an op's operand
// groups, which the generic form needs to keep them apart. GUESS: that
// metal4_kernel declares its groups as variadic segments (and so has this
// property) is not public; the kernel_args and result_shapes lists vary in
// length in coreai-torch's tests.
const attrSegmentSizes = "operandSegmentSizes"

func (p *parser) parseMetalKernel(nResults int) *graph.Operation {
	var uses []ssaUse
	add := func() {
		if u, ok := p.parseSSAUse(); ok {
			uses = append(uses, u)
		}
	}
	sizes := make([]int64, len(metalKernelGroups))
	for i, g := range metalKernelGroups {
		if i > 0 && !p.expect(comma, "',' before '"+strings.TrimSuffix(g, "(")+"'") {
			return nil
		}
		kw := strings.TrimSuffix(g, "(")
		if !p.acceptKeyword(kw) {
			p.fail("expected '%s' in coreai.metal4_kernel", kw)
			return nil
		}
		n := len(uses)
		if kw != g {
			p.parseCommaList(lParen, rParen, "'(' after '"+kw+"'", add)
		} else {
			add()
		}
		if !p.ok() {
			return nil
		}
		sizes[i] = int64(len(uses) - n)
	}
	op := graph.NewOp("coreai.metal4_kernel", nil, nil, nil, nil)
	op.Props = graph.Dict(graph.NamedAttr{Name: attrSegmentSizes, Value: graph.IntArray(graph.I32, sizes...)})
	return p.finishUniform(op, uses, nResults)
}
