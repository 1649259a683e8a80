package mlirtext

import (
	"strings"

	"github.com/anefix/anefix/graph"
)

// Custom (printed) syntax of the ops coreai-torch prints, plus the builtin
// and func ops plain MLIR modules use (coreai-facts §2, coreai-ir-notes §1).

// opAliases maps names MLIR lets you write without their dialect.
var opAliases = map[string]string{
	"module": "builtin.module",
	"return": "func.return",
	"call":   "func.call",
}

// toOps print their signature with `to` instead of `->`.
var toOps = map[string]bool{
	"coreai.cast":         true,
	"coreai.expand_dims":  true,
	"coreai.shrink_dims":  true,
	"coreai.slice_update": true,
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
	case "coreai.output", "func.return":
		return p.parseReturnOp(name)
	case "coreai.invoke", "func.call":
		return p.parseCallOp(name)
	case "coreai.constant":
		return p.parseConstantOp()
	case "coreai.slice_update":
		return p.parseSliceUpdate(nResults)
	case "coreai.gather_nd":
		return p.parseUniformOp(name, nResults, "at")
	}
	if strings.HasPrefix(name, "coreai.") {
		return p.parseUniformOp(name, nResults, "")
	}
	p.failAt(namePos, "custom syntax of op '%s' is not supported; write it in generic form (mlir-opt --mlir-print-op-generic)", name)
	return nil
}

func (p *parser) parseModuleOp() *graph.Operation {
	op := graph.NewOp("builtin.module", nil, nil, nil, nil)
	if p.is(AtIdent) {
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
	for p.is(BareIdent) {
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
	if !p.is(AtIdent) {
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
	p.parseCommaList(LParen, RParen, "'(' to start the argument list", func() {
		isNamed := p.is(PercentIdent)
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
			if !p.expect(Colon, "':' and the argument type") {
				return
			}
		}
		a.typ = p.parseType()
		var d graph.Attr = &graph.DictAttr{}
		if p.is(LBrace) {
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
	if p.accept(Arrow) {
		inParens := false
		one := func() {
			outTypes = append(outTypes, p.parseType())
			var d graph.Attr = &graph.DictAttr{}
			// Without parentheses a '{' starts the body, not result attributes.
			if inParens && p.is(LBrace) {
				if dd := p.parseDict(); dd != nil {
					d = dd
				}
			}
			resAttrs = append(resAttrs, d)
		}
		if p.is(LParen) { // a result list; a function-typed result needs ((…) -> …)
			inParens = true
			p.parseCommaList(LParen, RParen, "'('", one)
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
	if p.is(LBrace) {
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
// for (coreai-ir-notes §1: name is a guess).
const attrNoInline = "no_inline"

// parseOperandList reads `%a, %b#1, …` (possibly empty).
func (p *parser) parseOperandList() []ssaUse {
	var uses []ssaUse
	for p.is(PercentIdent) {
		u, ok := p.parseSSAUse()
		if !ok {
			return nil
		}
		uses = append(uses, u)
		if !p.accept(Comma) {
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
		if !p.accept(Comma) {
			break
		}
	}
	return ts
}

// parseReturnOp: `coreai.output %a, %b : T, U` or bare `coreai.output`.
func (p *parser) parseReturnOp(name string) *graph.Operation {
	op := graph.NewOp(name, nil, nil, nil, nil)
	uses := p.parseOperandList()
	if p.is(LBrace) {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	if len(uses) == 0 {
		return op
	}
	pos := p.tok.Pos
	if !p.expect(Colon, "':' and the operand types") {
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
	if !p.is(AtIdent) {
		p.fail("expected callee symbol (@name)")
		return nil
	}
	callee := p.parseSymbolRef()
	if !p.ok() {
		return nil
	}
	var uses []ssaUse
	p.parseCommaList(LParen, RParen, "'(' to start the call operands", func() {
		if u, ok := p.parseSSAUse(); ok {
			uses = append(uses, u)
		}
	})
	op := graph.NewOp(name, nil, nil, nil, nil)
	op.Props = graph.Dict(graph.NamedAttr{Name: "callee", Value: callee})
	if p.is(LBrace) {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	pos := p.tok.Pos
	if !p.expect(Colon, "':' and the callee's function type") {
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

// parseSliceUpdate: `%x with %upd at (%b, %e, %s) : (X, U, B, E, S) to X`.
func (p *parser) parseSliceUpdate(nResults int) *graph.Operation {
	var uses []ssaUse
	add := func() {
		if u, ok := p.parseSSAUse(); ok {
			uses = append(uses, u)
		}
	}
	add()
	if !p.acceptKeyword("with") {
		p.fail("expected 'with' in coreai.slice_update")
		return nil
	}
	add()
	if !p.acceptKeyword("at") {
		p.fail("expected 'at' in coreai.slice_update")
		return nil
	}
	p.parseCommaList(LParen, RParen, "'('", add)
	return p.finishUniform("coreai.slice_update", uses, nResults)
}

// parseUniformOp: `coreai.op %a, %b [{attrs}] : (T, U) -> V` (or `T -> V`,
// `… to V`). sep, when set, is a keyword between the first two operands
// (`gather_nd %t at %i`).
func (p *parser) parseUniformOp(name string, nResults int, sep string) *graph.Operation {
	var uses []ssaUse
	if sep != "" && p.is(PercentIdent) {
		u, ok := p.parseSSAUse()
		if !ok {
			return nil
		}
		uses = append(uses, u)
		if !p.acceptKeyword(sep) && !p.accept(Comma) {
			p.fail("expected '%s' after the first operand of %s", sep, name)
			return nil
		}
	}
	uses = append(uses, p.parseOperandList()...)
	return p.finishUniform(name, uses, nResults)
}

func (p *parser) finishUniform(name string, uses []ssaUse, nResults int) *graph.Operation {
	if !p.ok() {
		return nil
	}
	op := graph.NewOp(name, nil, nil, nil, nil)
	if p.is(LBrace) {
		if d := p.parseDict(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	pos := p.tok.Pos
	if !p.expect(Colon, "':' and the op's type signature") {
		return nil
	}
	var ins []graph.Type
	if p.is(LParen) {
		p.parseCommaList(LParen, RParen, "'('", func() { ins = append(ins, p.parseType()) })
	} else {
		ins = []graph.Type{p.parseType()}
	}
	if !p.ok() {
		return nil
	}
	if !p.accept(Arrow) && !p.acceptKeyword("to") {
		p.fail("expected '->' or 'to' and the result type")
		return nil
	}
	outs := p.parseResultTypes()
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
