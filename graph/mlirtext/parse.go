package mlirtext

import (
	"strconv"
	"strings"
	"sync"

	"github.com/anefix/anefix/graph"
)

// Form is a textual form of MLIR.
type Form uint8

const (
	// formKeep means "the form the input had" when writing.
	formKeep Form = iota
	// FormGeneric is MLIR's generic op form, as `mlir-opt --mlir-print-op-generic`.
	FormGeneric
	// FormPretty is the printed (custom) form coreai-torch writes.
	FormPretty
)

func (f Form) String() string {
	switch f {
	case FormGeneric:
		return "generic"
	case FormPretty:
		return "pretty"
	}
	return "keep"
}

// parseForm reads "generic", "pretty" or "keep"/"".
func parseForm(s string) (Form, bool) {
	switch s {
	case "generic":
		return FormGeneric, true
	case "pretty":
		return FormPretty, true
	case "", "keep":
		return formKeep, true
	}
	return formKeep, false
}

// Parse reads MLIR text (generic or coreai printed form) named name. It
// returns the module and the form the text used: FormPretty when any op was
// written in custom syntax, else FormGeneric. Resource blobs stay in text
// (they reference text) and are decoded only when read.
func Parse(name string, text string) (*graph.Module, Form, error) {
	return parse(newParser(name, text))
}

// ParseProgress is Parse telling progress how far it is: a byte offset of
// text, never decreasing, at each op and resource, and len(text) once the
// text is parsed (a progress bar's total).
func ParseProgress(name string, text string, progress func(pos int)) (*graph.Module, Form, error) {
	p := newParser(name, text)
	p.progress = progress
	m, form, err := parse(p)
	if err == nil {
		progress(len(text))
	}
	return m, form, err
}

// ParseAttr parses text as one attribute standing alone, as MLIR parses a
// textual entry of a bytecode file: no aliases or resources are defined,
// and the whole text must be the attribute. The bytecode reader checks its
// textual entries with it, so that text it prints reads back.
func ParseAttr(name, text string) (graph.Attr, error) {
	p := standaloneParser(name, text)
	defer standalone.Put(p)
	a := p.parseAttr()
	return a, p.standaloneEnd("attribute")
}

// ParseType is ParseAttr for a type.
func ParseType(name, text string) (graph.Type, error) {
	p := standaloneParser(name, text)
	defer standalone.Put(p)
	t := p.parseType()
	return t, p.standaloneEnd("type")
}

// standalone holds parsers for ParseAttr and ParseType: a model has
// thousands of textual entries (3,525 in a 1.5 GB export), and a new parser
// each, with its tables, was 780 bytes of garbage an entry.
var standalone = sync.Pool{New: func() any { return newParser("", "") }}

// standaloneParser is a parser from the pool set to read text, with what a
// previous text left behind cleared (the tables keep their room).
func standaloneParser(name, text string) *parser {
	p := standalone.Get().(*parser)
	src, lex := p.src, p.lex
	types, fnTypes := p.types, p.fnTypes
	clear(types)
	clear(fnTypes)
	// The alias tables stay empty: only a whole file defines aliases.
	*p = parser{attrAliases: p.attrAliases, typeAliases: p.typeAliases, locAliases: p.locAliases, types: types, fnTypes: fnTypes}
	*src = source{Name: name, Text: text, curLine: 1}
	*lex = lexer{src: src, s: text}
	p.src, p.lex = src, lex
	p.next()
	return p
}

// standaloneEnd ends ParseAttr and ParseType: nothing may follow, and a
// `#name` in a dialect body or location stays as written (no alias is
// defined) unless it is a location alias, which would need one.
func (p *parser) standaloneEnd(what string) error {
	if p.ok() && !p.is(EOF) {
		p.fail("unexpected %s after the %s", describe(p.tok), what)
	}
	if p.ok() {
		p.resolveDeferred()
	}
	if p.err != nil {
		return p.err
	}
	return nil
}

// parseUnshared is Parse without sharing equal spellings (locations,
// function types, dictionaries): the reference the tests and the fuzzer
// compare Parse with.
func parseUnshared(name, text string) (*graph.Module, Form, error) {
	p := newParser(name, text)
	p.unshared = true
	return parse(p)
}

func parse(p *parser) (*graph.Module, Form, error) {
	m := p.parseFile()
	if p.err != nil {
		return nil, formKeep, p.err
	}
	form := FormGeneric
	if p.pretty {
		form = FormPretty
	}
	return m, form, nil
}

type forwardRef struct {
	val *graph.Value // placeholder result of a detached op
	pos int
}

type blockDef struct {
	block   *graph.Block
	defined bool
	pos     int // first reference, for errors
}

// scope holds the names of one region. Outer scopes stay visible because
// ops of unregistered dialects are not isolated from above.
type scope struct {
	vals map[string]*graph.Value // a name's value (the first of its result group)
	// nums holds the values named by a plain decimal number (%0, %17: what
	// MLIR's printer writes), indexed by it, so most names are never
	// hashed; vals has every other name (scope.lookup, scope.bind).
	nums    []*graph.Value
	groups  map[string][]*graph.Value // result groups of more than one value (`%x:3`)
	forward map[string]*forwardRef    // "name#idx"
	fwdN    map[string]int            // open forward references per name
	order   []*graph.Block            // blocks in definition order
	blocks  map[string]*blockDef
	region  *graph.Region
}

func newScope(r *graph.Region) *scope {
	return &scope{vals: map[string]*graph.Value{}, groups: map[string][]*graph.Value{}, forward: map[string]*forwardRef{}, fwdN: map[string]int{}, blocks: map[string]*blockDef{}, region: r}
}

func (p *parser) parseFile() *graph.Module {
	m := graph.NewModule()
	p.module = m
	top := newScope(m.Op.Regions[0])
	p.scopes = []*scope{top}
	body := m.Body()
	for p.ok() && !p.is(EOF) {
		switch p.tok.Kind {
		case hashIdent:
			if p.peekIsAliasDef() {
				p.parseAttrAliasDef()
				continue
			}
		case bangIdent:
			if p.peekIsAliasDef() {
				p.parseTypeAliasDef()
				continue
			}
		case fileMetaBegin:
			p.parseFileMetadata(m)
			continue
		}
		op := p.parseOperation()
		if op != nil {
			body.Append(op)
		}
	}
	if !p.ok() {
		return nil
	}
	p.resolveDeferred()
	p.closeScope(top, true)
	if !p.ok() {
		return nil
	}
	// One explicit builtin.module is the module; anything else is wrapped
	// in an implicit one located at file:0:0, as MLIR does.
	if body.Len() == 1 && body.First().Name == "builtin.module" {
		op := body.First()
		op.Remove()
		m.Op = op
		p.checkModuleShape(op)
	} else {
		m.Op.Loc = &graph.FileLoc{File: p.src.Name, Line: 0, Col: 0, Implicit: true}
		m.Implicit = true
	}
	if !p.ok() {
		return nil
	}
	return m
}

func (p *parser) checkModuleShape(op *graph.Operation) {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		p.failAt(0, "builtin.module must have one region with one block")
	}
}

// peekIsAliasDef reports whether the current #x / !x token starts an alias
// definition `#x = …` at top level.
func (p *parser) peekIsAliasDef() bool {
	save := p.lex.Pos()
	t := p.lex.Next()
	p.lex.Reset(save)
	return t.Kind == equal
}

func (p *parser) parseAttrAliasDef() {
	tok := p.tok
	name := tok.Text[1:]
	if strings.Contains(name, ".") {
		p.fail("attribute alias '%s' may not contain a '.'", name)
		return
	}
	if _, dup := p.attrAliases[name]; dup {
		p.fail("redefinition of attribute alias id '%s'", name)
		return
	}
	if _, dup := p.locAliases[name]; dup {
		p.fail("redefinition of attribute alias id '%s'", name)
		return
	}
	p.next()
	p.next() // '='
	if p.isKeyword("loc") {
		if l := p.parseLoc(nil); l != nil {
			p.locAliases[name] = l
		}
		return
	}
	if a := p.parseAttr(); a != nil {
		p.attrAliases[name] = a
	}
}

func (p *parser) parseTypeAliasDef() {
	tok := p.tok
	name := tok.Text[1:]
	if strings.Contains(name, ".") {
		p.fail("type alias '%s' may not contain a '.'", name)
		return
	}
	if _, dup := p.typeAliases[name]; dup {
		p.fail("redefinition of type alias id '%s'", name)
		return
	}
	p.next()
	p.next() // '='
	if t := p.parseType(); t != nil {
		p.typeAliases[name] = t
	}
}

// ---------------------------------------------------------------- scopes

func (p *parser) cur() *scope { return p.scopes[len(p.scopes)-1] }

// closeScope ends a region: unresolved forward references move to the
// enclosing scope (they may name an outer value defined later) or, at top
// level, are errors. Blocks referenced but never defined are errors.
func (p *parser) closeScope(s *scope, top bool) {
	for name, b := range s.blocks {
		if !b.defined {
			p.failAt(b.pos, "reference to an undefined block '^%s'", name)
			return
		}
	}
	keys := make([]string, 0, len(s.forward))
	for k := range s.forward {
		keys = append(keys, k)
	}
	// Deterministic error choice: report the earliest use.
	minPos := -1
	var minKey string
	for _, k := range keys {
		if fr := s.forward[k]; minPos < 0 || fr.pos < minPos {
			minPos, minKey = fr.pos, k
		}
	}
	if top {
		if minPos >= 0 {
			p.failAt(minPos, "use of undeclared SSA value name '%%%s'", strings.SplitN(minKey, "#", 2)[0])
		}
		return
	}
	parent := p.scopes[len(p.scopes)-2]
	for _, k := range keys {
		fr := s.forward[k]
		if other, ok := parent.forward[k]; ok {
			if !graph.TypeEqual(other.val.Type(), fr.val.Type()) {
				p.failAt(fr.pos, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'", k, fr.val.Type(), other.val.Type())
				return
			}
			fr.val.ReplaceAllUsesWith(other.val)
			continue
		}
		parent.forward[k] = fr
		parent.fwdN[strings.SplitN(k, "#", 2)[0]]++
	}
}

func (p *parser) pushScope(r *graph.Region) *scope {
	s := newScope(r)
	p.scopes = append(p.scopes, s)
	return s
}

func (p *parser) popScope() {
	s := p.cur()
	p.closeScope(s, false)
	p.scopes = p.scopes[:len(p.scopes)-1]
}

// numName reads a value name that is a decimal number without leading
// zeros (%0, %12; not %007, which is another name).
func numName(name string) (int, bool) {
	if len(name) == 0 || len(name) > 9 || name[0] == '0' && len(name) > 1 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// lookup returns the value bound to name in s.
func (s *scope) lookup(name string) (*graph.Value, bool) {
	if n, ok := numName(name); ok && n < len(s.nums) && s.nums[n] != nil {
		return s.nums[n], true
	}
	v, ok := s.vals[name]
	return v, ok
}

// bind binds name (not bound yet) to v. A numbered name goes in nums when
// its number is within reach of the ones bound so far (nums at most doubles
// plus 256 slots, so a stray %99999999 costs a map entry, not a slice of
// its size); lookup checks nums first, then vals.
func (s *scope) bind(name string, v *graph.Value) {
	if n, ok := numName(name); ok && n < 2*len(s.nums)+256 {
		if n >= len(s.nums) {
			s.nums = append(s.nums, make([]*graph.Value, n+1-len(s.nums))...)
		}
		s.nums[n] = v
		return
	}
	s.vals[name] = v
}

// defineValues binds %name (a result group) in the current scope and
// resolves forward references to it.
func (p *parser) defineValues(name string, pos int, vals []*graph.Value) {
	s := p.cur()
	if _, dup := s.lookup(name); dup {
		p.failAt(pos, "redefinition of SSA value '%%%s'", name)
		return
	}
	s.bind(name, vals[0])
	if len(vals) > 1 {
		s.groups[name] = vals
	}
	if len(s.forward) == 0 || s.fwdN[name] == 0 {
		return // the common case: no earlier use
	}
	for i, v := range vals {
		key := name + "#" + strconv.Itoa(i)
		fr, ok := s.forward[key]
		if !ok {
			continue
		}
		if !graph.TypeEqual(fr.val.Type(), v.Type()) {
			p.failAt(fr.pos, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'", name, fr.val.Type(), v.Type())
			return
		}
		fr.val.ReplaceAllUsesWith(v)
		delete(s.forward, key)
		s.fwdN[name]--
	}
	if s.fwdN[name] == 0 {
		return
	}
	// Uses of result numbers the definition does not have (error path).
	for key, fr := range s.forward {
		if n, idx, _ := strings.Cut(key, "#"); n == name {
			i, _ := strconv.Atoi(idx)
			p.failAt(fr.pos, "reference to invalid result number '%%%s#%d'", name, i)
			return
		}
	}
}

// ssaUse is a parsed operand reference awaiting its type.
type ssaUse struct {
	name string
	idx  int
	pos  int
}

func (p *parser) parseSSAUse() (ssaUse, bool) {
	if !p.is(percentIdent) {
		p.fail("expected SSA operand, found %s", describe(p.tok))
		return ssaUse{}, false
	}
	u := ssaUse{name: p.tok.Text[1:], pos: p.tok.Pos}
	// `%x#1` lexes as two adjacent tokens.
	end := p.tok.End
	p.next()
	if p.is(hashIdent) && p.tok.Pos == end {
		n, err := strconv.Atoi(p.tok.Text[1:])
		if err != nil {
			p.fail("invalid SSA value result number")
			return u, false
		}
		u.idx = n
		p.next()
	}
	return u, true
}

// resolve returns the value for a use, creating a typed forward reference
// when the name is not defined yet.
func (p *parser) resolve(u ssaUse, t graph.Type) *graph.Value {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if v, ok := p.scopes[i].lookup(u.name); ok {
			if u.idx > 0 {
				g := p.scopes[i].groups[u.name]
				if u.idx >= len(g) {
					p.failAt(u.pos, "reference to invalid result number '%%%s#%d'", u.name, u.idx)
					return nil
				}
				v = g[u.idx]
			}
			if t != nil && !graph.TypeEqual(v.Type(), t) {
				p.failAt(u.pos, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'", u.name, t, v.Type())
				return nil
			}
			return v
		}
	}
	key := u.name + "#" + strconv.Itoa(u.idx)
	s := p.cur()
	if fr, ok := s.forward[key]; ok {
		if t != nil && !graph.TypeEqual(fr.val.Type(), t) {
			p.failAt(u.pos, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'", u.name, t, fr.val.Type())
			return nil
		}
		return fr.val
	}
	if t == nil {
		p.failAt(u.pos, "use of undeclared SSA value name '%%%s'", u.name)
		return nil
	}
	ph := graph.NewOp("mlirtext.forward_ref", nil, []graph.Type{t}, nil, nil)
	s.forward[key] = &forwardRef{val: ph.Result(0), pos: u.pos}
	s.fwdN[u.name]++
	return ph.Result(0)
}

func (p *parser) resolveAll(uses []ssaUse, types []graph.Type, where int) []*graph.Value {
	if len(uses) != len(types) {
		p.failAt(where, "%d operands present, but expected %d", len(uses), len(types))
		return nil
	}
	if uint64(len(uses)) > graph.MaxOperands {
		p.failAt(where, "%d operands, more than the %d an op can have", len(uses), uint64(graph.MaxOperands))
		return nil
	}
	// Gathered in a reused buffer: SetOperands copies it into the op.
	out := p.valScratch[:0]
	for i, u := range uses {
		out = append(out, p.resolve(u, types[i]))
		if !p.ok() {
			return nil
		}
	}
	p.valScratch = out[:0]
	return out
}

// blockRef returns the block named by a ^label in the current region,
// creating it on first reference.
func (p *parser) blockRef(name string, pos int) *graph.Block {
	s := p.cur()
	if s.region == nil {
		p.failAt(pos, "block reference '^%s' outside of a region", name)
		return nil
	}
	if b, ok := s.blocks[name]; ok {
		return b.block
	}
	b := s.region.AddBlock(nil, nil)
	s.blocks[name] = &blockDef{block: b, pos: pos}
	return b
}

// ------------------------------------------------------------ operations

// resultGroup is `%name` or `%name:N` on the left of an op.
type resultGroup struct {
	name  string
	count int
	pos   int
}

func (p *parser) parseOperation() *graph.Operation {
	if !p.enter() {
		return nil
	}
	if p.progress != nil {
		p.progress(p.tok.Pos)
	}
	defer p.leave()
	var groups []resultGroup
	total := 0
	if p.is(percentIdent) {
		for p.ok() {
			if !p.is(percentIdent) {
				p.fail("expected SSA result name")
				return nil
			}
			g := resultGroup{name: p.tok.Text[1:], count: 1, pos: p.tok.Pos}
			p.next()
			if p.accept(colon) {
				if !p.is(integer) || strings.HasPrefix(p.tok.Text, "0x") {
					p.fail("expected integer number of results")
					return nil
				}
				n, err := strconv.Atoi(p.tok.Text)
				if err != nil || n < 1 {
					p.fail("expected a positive number of results")
					return nil
				}
				g.count = n
				p.next()
			}
			groups = append(groups, g)
			total += g.count
			if !p.accept(comma) {
				break
			}
		}
		if !p.expect(equal, "'=' after SSA result names") {
			return nil
		}
	}
	namePos := p.tok.Pos
	// The implicit location's line and column, read before the op's
	// regions move the position on (Source.LineCol scans forward).
	line, col := p.src.LineCol(namePos)
	var op *graph.Operation
	switch p.tok.Kind {
	case stringLit:
		op = p.parseGenericOp()
	case bareIdent:
		op = p.parseCustomOp(total)
		p.pretty = true
	default:
		p.fail("expected operation name in quotes, or a custom op, found %s", describe(p.tok))
		return nil
	}
	if op == nil || !p.ok() {
		return nil
	}
	if op.NumResults() != total {
		p.failAt(namePos, "operation defines %d results but was provided %d to bind", op.NumResults(), total)
		return nil
	}
	// Trailing location; without one MLIR uses the op name's position.
	if p.isKeyword("loc") {
		op.Loc = p.parseLoc(&op.Loc)
	} else {
		op.Loc = p.implicitLoc(line, col)
	}
	if op.Name == "coreai.constant" && len(groups) > 0 {
		// The name weights= patterns match (graph.TextName); a copy: the
		// token's text is the source's, which the module must not keep
		// alive.
		op.Result(0).Loc = &graph.NameLoc{Name: strings.Clone(groups[0].name)}
	}
	k := 0
	for _, g := range groups {
		p.defineValues(g.name, g.pos, op.Results()[k:k+g.count])
		k += g.count
	}
	return op
}

// parseGenericOp: "name"(operands)[succ] <{props}> (regions) {attrs} : fn-type
func (p *parser) parseGenericOp() *graph.Operation {
	name, ok := unquote(p.tok.Text)
	if !ok || name == "" {
		p.fail("invalid operation name")
		return nil
	}
	p.next()
	op := graph.NewOp(name, nil, nil, nil, nil)
	// Operand names wait on p.useStack for the type (regions parsed below
	// push above this op's part).
	mark := len(p.useStack)
	defer func() { p.useStack = p.useStack[:mark] }()
	p.parseCommaList(lParen, rParen, "'(' to start operand list", func() {
		if u, ok := p.parseSSAUse(); ok {
			p.useStack = append(p.useStack, u)
		}
	})
	if p.is(lSquare) {
		var succ []*graph.Block
		p.parseCommaList(lSquare, rSquare, "'['", func() {
			if !p.is(caretIdent) {
				p.fail("expected block name")
				return
			}
			succ = append(succ, p.blockRef(p.tok.Text[1:], p.tok.Pos))
			p.next()
		})
		op.SetSuccessors(succ)
	}
	if p.is(less) {
		p.next()
		if p.is(lBrace) && p.enter() { // the level parseAttr would count
			op.Props = p.parseDictCached()
			p.leave()
		} else {
			op.Props = p.parseAttr()
		}
		if !p.expect(greater, "'>' to close properties") {
			return nil
		}
	}
	if p.is(lParen) {
		p.parseCommaList(lParen, rParen, "'('", func() {
			p.parseRegion(op.AddRegion(), nil)
		})
	}
	if p.is(lBrace) {
		if d := p.parseDictCached(); d != nil && d.Len() > 0 {
			op.Attrs = d
		}
	}
	if !p.ok() {
		return nil
	}
	typePos := p.tok.Pos
	if !p.expect(colon, "':' followed by the operation's function type") {
		return nil
	}
	t := p.parseType()
	if !p.ok() {
		return nil
	}
	ft, ok := t.(*graph.FunctionType)
	if !ok {
		p.failAt(typePos, "expected function type for a generic operation, found %s", t)
		return nil
	}
	if uint64(len(ft.Results)) > graph.MaxOperands {
		p.failAt(typePos, "%d results, more than the %d an op can have", len(ft.Results), uint64(graph.MaxOperands))
		return nil
	}
	op.SetOperands(p.resolveAll(p.useStack[mark:], ft.Inputs, typePos))
	op.AddResults(ft.Results...)
	return op
}

// entryArg is a block argument declared outside the region's text (the
// signature of a pretty coreai.graph / func.func).
type entryArg struct {
	name string
	pos  int
	typ  graph.Type
	loc  graph.Loc
	hasL bool
}

// parseRegion parses `{ … }` into r. entry, when non-nil, pre-declares the
// entry block's arguments (function signature in pretty form).
func (p *parser) parseRegion(r *graph.Region, entry []*entryArg) {
	if !p.enter() {
		return
	}
	defer p.leave()
	if !p.expect(lBrace, "'{' to begin a region") {
		return
	}
	s := p.pushScope(r)
	defer func() {
		if p.ok() {
			p.popScope()
		} else {
			p.scopes = p.scopes[:len(p.scopes)-1]
		}
	}()
	if entry != nil {
		b := r.AddBlock(nil, nil)
		s.order = append(s.order, b)
		vals := make([]*graph.Value, 0, len(entry))
		for _, a := range entry {
			v := b.AddArgument(a.typ, a.loc)
			if !a.hasL {
				v.Loc = p.implicitLoc(p.src.LineCol(a.pos))
			}
			vals = append(vals, v)
			p.defineValues(a.name, a.pos, []*graph.Value{v})
		}
		// Deferred loc aliases on signature args point at the entry copies.
		for i, a := range entry {
			for k := range p.deferred {
				if p.deferred[k].slot == &a.loc {
					p.deferred[k].slot = &b.Arg(i).Loc
				}
			}
		}
		if p.is(caretIdent) {
			p.fail("a function body with named arguments cannot start with a block label")
			return
		}
		p.parseBlockOps(b)
	} else if !p.is(rBrace) && !p.is(caretIdent) {
		b := r.AddBlock(nil, nil)
		s.order = append(s.order, b)
		p.parseBlockOps(b)
	}
	for p.ok() && p.is(caretIdent) {
		p.parseLabeledBlock(s)
	}
	p.expect(rBrace, "'}' to end the region")
	// Blocks referenced before their label were created early; put every
	// block in definition order (undefined ones are reported on close).
	if p.ok() && len(s.order) == len(r.Blocks) {
		copy(r.Blocks, s.order)
	}
}

// parseBlockOps reads ops until '}' or the next block label.
func (p *parser) parseBlockOps(b *graph.Block) {
	for p.ok() && !p.is(rBrace) && !p.is(caretIdent) {
		if p.is(EOF) {
			p.fail("expected '}' to end the region")
			return
		}
		if op := p.parseOperation(); op != nil {
			b.Append(op)
		}
	}
}

func (p *parser) parseLabeledBlock(s *scope) {
	name, pos := p.tok.Text[1:], p.tok.Pos
	p.next()
	bd, ok := s.blocks[name]
	if ok && bd.defined {
		p.failAt(pos, "redefinition of block '^%s'", name)
		return
	}
	var b *graph.Block
	if ok {
		b = bd.block
	} else {
		b = s.region.AddBlock(nil, nil)
		bd = &blockDef{block: b, pos: pos}
		s.blocks[name] = bd
	}
	bd.defined = true
	s.order = append(s.order, b)
	if p.is(lParen) {
		p.parseCommaList(lParen, rParen, "'('", func() {
			if !p.is(percentIdent) {
				p.fail("expected block argument name")
				return
			}
			an, apos := p.tok.Text[1:], p.tok.Pos
			p.next()
			if !p.expect(colon, "':' and a type for block argument") {
				return
			}
			t := p.parseType()
			if !p.ok() {
				return
			}
			v := b.AddArgument(t, nil)
			if p.isKeyword("loc") {
				v.Loc = p.parseLoc(&v.Loc)
			} else {
				v.Loc = p.implicitLoc(p.src.LineCol(apos))
			}
			p.defineValues(an, apos, []*graph.Value{v})
		})
	}
	if !p.expect(colon, "':' after block label") {
		return
	}
	p.parseBlockOps(b)
}
